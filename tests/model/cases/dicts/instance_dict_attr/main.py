class Bus:
    def __init__(self):
        self.subs = {}

    def on(self, name, fn):
        self.subs[name] = fn

    def emit(self, name):
        self.subs[name]()

def listener():
    pass

bus = Bus()
bus.on("tick", listener)
bus.emit("tick")
