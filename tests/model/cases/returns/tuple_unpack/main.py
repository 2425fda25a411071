def left():
    pass

def right():
    pass

def pair():
    return left, right

l, r = pair()
r()
