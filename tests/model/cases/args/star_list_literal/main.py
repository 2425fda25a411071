def first():
    pass

def second():
    pass

def pair(x, y):
    y()

pair(*[first, second])
