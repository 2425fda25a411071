def name():
    return "n"

def a():
    pass

def b():
    pass

label = f"{name()}!"
(a if label else b)()
