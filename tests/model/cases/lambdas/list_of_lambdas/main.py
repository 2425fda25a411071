def first():
    pass

def second():
    pass

ops = [lambda: first(), lambda: second()]
ops[1]()
