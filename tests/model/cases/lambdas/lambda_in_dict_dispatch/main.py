def add():
    pass

def sub():
    pass

ops = {"+": lambda: add(), "-": lambda: sub()}
ops["-"]()
