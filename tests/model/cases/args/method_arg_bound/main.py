class Greeter:
    def hello(self):
        pass

def apply(fn):
    fn()

g = Greeter()
apply(g.hello)
