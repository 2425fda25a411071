class Base:
    def __init__(self, callback):
        self.callback = callback

    def fire(self):
        self.callback()

def notify():
    pass

class Child(Base):
    def __init__(self):
        super().__init__(notify)

Child().fire()
