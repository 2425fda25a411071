def one():
    pass

def two():
    pass

table = {"x": one, "y": two}
for k in table:
    table[k]()
