def a():
    pass

def b():
    pass

def c():
    pass

left = [a, b]
right = [c]
for fn in [*left, *right]:
    fn()
