def init():
    pass

init()

def ready():
    pass
