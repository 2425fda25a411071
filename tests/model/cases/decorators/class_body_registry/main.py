class Bot:
    commands = {}

    def command(name, commands=commands):
        def deco(fn):
            commands[name] = fn
            return fn
        return deco

    @command("hi")
    def hi(self):
        pass

    def handle(self, name):
        self.commands[name](self)

Bot().handle("hi")
