def a():
    pass

def b():
    pass

ls = [a, b]
ls[-1]()
