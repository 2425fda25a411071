import functools

class Printer:
    def emit(self, text):
        pass

p = Printer()
say = functools.partial(p.emit, "hi")
say()
