class Foo:
    def __init__(self):
        pass

    def go(self):
        pass

def build(kind):
    return kind()

build(Foo).go()
