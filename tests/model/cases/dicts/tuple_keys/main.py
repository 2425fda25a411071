def alpha():
    pass

def beta():
    pass

table = {("a", 1): alpha, ("b", 2): beta}
table[("a", 1)]()
