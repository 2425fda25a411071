def fa():
    pass

def fb():
    pass

def fc():
    pass

def run(first, *rest, last=None, **extra):
    first()
    for r in rest:
        r()
    last()
    extra["more"]()

run(fa, fb, last=fc, more=fa)
