def on_int():
    pass

def on_str():
    pass

def route(value):
    match value:
        case int():
            handler = on_int
        case str():
            handler = on_str
        case _:
            return
    handler()

route(1)
