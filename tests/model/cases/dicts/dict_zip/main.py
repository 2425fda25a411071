def a():
    pass

def b():
    pass

mapping = dict(zip(["a", "b"], [a, b]))
for fn in mapping.values():
    fn()
