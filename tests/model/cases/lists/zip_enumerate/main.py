def x():
    pass

def y():
    pass

for i, fn in enumerate([x, y]):
    fn()
for f, g in zip([x], [y]):
    g()
