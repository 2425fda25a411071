def load():
    pass
