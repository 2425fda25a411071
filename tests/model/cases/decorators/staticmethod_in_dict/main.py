def on_a():
    pass

class Router:
    table = {"a": on_a}

    def go(self, key):
        self.table[key]()

Router().go("a")
