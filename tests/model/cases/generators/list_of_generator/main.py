def one():
    pass

def two():
    pass

def gen():
    yield one
    yield two

fns = list(gen())
fns[0]()
