class Registry(dict):
    def register(self, name, fn):
        self[name] = fn

def task():
    pass

reg = Registry()
reg.register("t", task)
reg["t"]()
