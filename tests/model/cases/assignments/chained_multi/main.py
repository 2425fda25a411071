def one():
    pass

def two():
    pass

a = b = one
b = two
a()
b()
