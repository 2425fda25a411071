def replacement():
    pass

def swap(fn):
    return replacement

@swap
def original():
    pass

original()
