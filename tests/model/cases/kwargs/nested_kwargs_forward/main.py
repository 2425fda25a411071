def sink(*, on_done):
    on_done()

def middle(**kw):
    sink(**kw)

def outer(**kw):
    middle(**kw)

def finished():
    pass

outer(on_done=finished)
