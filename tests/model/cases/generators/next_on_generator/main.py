def task():
    pass

def gen():
    yield task

g = gen()
next(g)()
