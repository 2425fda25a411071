def fast():
    pass

def slow():
    pass

config = dict(mode=slow)
config.update(mode=fast)
config["mode"]()
