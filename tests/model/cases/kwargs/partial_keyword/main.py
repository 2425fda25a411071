import functools

def greet(name, callback):
    callback()

def done():
    pass

hello = functools.partial(greet, callback=done)
hello("x")
