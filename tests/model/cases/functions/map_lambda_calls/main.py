def a():
    pass

def b():
    pass

results = list(map(lambda f: f(), [a, b]))
