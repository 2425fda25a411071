from boot.setup import configure

configure()

def ready():
    pass
