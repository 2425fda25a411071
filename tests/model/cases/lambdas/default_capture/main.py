def mk(fn):
    return lambda x=fn: x()

def target():
    pass

mk(target)()
