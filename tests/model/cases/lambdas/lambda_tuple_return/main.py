def a():
    pass

def b():
    pass

pair = lambda: (a, b)
first, second = pair()
second()
