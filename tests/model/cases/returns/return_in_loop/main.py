def a():
    pass

def b():
    pass

def find(name):
    for fn in (a, b):
        if fn.__name__ == name:
            return fn
    return None

found = find("b")
found()
