def make_ops():
    return {"inc": lambda x: x + 1, "dec": lambda x: x - 1}

ops = make_ops()
ops["dec"](3)
