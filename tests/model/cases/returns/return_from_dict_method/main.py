def handler():
    pass

class Registry:
    def __init__(self):
        self.items = {"h": handler}

    def lookup(self, key):
        return self.items.get(key)

Registry().lookup("h")()
