def once():
    pass

def other():
    pass

pending = {"x": once, "y": other}
pending.pop("x")()
