def on_a():
    pass

def on_b():
    pass

events = {"a": on_a, "b": on_b}
for name, callback in events.items():
    callback()
