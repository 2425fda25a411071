def red():
    pass

def green():
    pass

palette = {fn.__name__: fn for fn in [red, green]}
for name in palette:
    palette[name]()
