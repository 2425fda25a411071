HANDLERS = {}

def register(fn):
    HANDLERS[fn.__name__] = fn
    return fn
