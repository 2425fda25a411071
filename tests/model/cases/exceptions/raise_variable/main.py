class Timeout(Exception):
    def __init__(self):
        pass

def make():
    return Timeout

err = make()
raise err
