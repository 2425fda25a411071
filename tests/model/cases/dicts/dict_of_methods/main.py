class Machine:
    def start(self):
        pass

    def stop(self):
        pass

    def dispatch(self, cmd):
        table = {"start": self.start, "stop": self.stop}
        table[cmd]()

m = Machine()
m.dispatch("stop")
