def x():
    pass

def y():
    pass

def gen():
    yield lambda: x()
    yield lambda: y()

for f in gen():
    f()
