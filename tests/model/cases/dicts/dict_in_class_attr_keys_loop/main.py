class Dispatcher:
    def on_a(self):
        pass

    def on_b(self):
        pass

    def run(self):
        table = {"a": self.on_a, "b": self.on_b}
        for key in ("a", "b"):
            table[key]()

Dispatcher().run()
