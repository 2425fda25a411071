from abc import ABC, abstractmethod

class Handler(ABC):
    @abstractmethod
    def handle(self):
        pass

class JsonHandler(Handler):
    def handle(self):
        pass

class XmlHandler(Handler):
    def handle(self):
        pass

def process(handlers):
    for h in handlers:
        h.handle()

process([JsonHandler(), XmlHandler()])
