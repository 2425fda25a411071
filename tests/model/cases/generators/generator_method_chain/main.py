class Source:
    def items(self):
        yield Sink()

class Sink:
    def consume(self):
        pass

for s in Source().items():
    s.consume()
