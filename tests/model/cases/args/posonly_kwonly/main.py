def left():
    pass

def right():
    pass

def combine(a, /, *, b):
    a()
    b()

combine(left, b=right)
