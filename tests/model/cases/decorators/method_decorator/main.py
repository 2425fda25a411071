def trace(fn):
    def inner(self):
        return fn(self)
    return inner

class Service:
    @trace
    def start(self):
        pass

Service().start()
