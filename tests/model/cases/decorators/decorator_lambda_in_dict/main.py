ROUTES = {}

def route(name):
    def register(fn):
        ROUTES[name] = lambda: fn()
        return fn
    return register

@route("home")
def home():
    pass

ROUTES["home"]()
