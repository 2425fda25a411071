class BaseErr(Exception):
    def __init__(self):
        pass

class NotFound(BaseErr):
    pass

def lookup():
    raise NotFound()

lookup()
