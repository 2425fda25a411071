def inner():
    pass

def middle():
    return inner

def outer():
    return middle

outer()()()
