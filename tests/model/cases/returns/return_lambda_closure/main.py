def target():
    pass

def make():
    fn = target
    return lambda: fn()

make()()
