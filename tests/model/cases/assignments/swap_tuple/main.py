def first():
    pass

def second():
    pass

x, y = first, second
x, y = y, x
x()
