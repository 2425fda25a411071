def a():
    pass

def b():
    pass

def inner():
    yield a

def outer():
    yield from inner()
    yield b

for fn in outer():
    fn()
