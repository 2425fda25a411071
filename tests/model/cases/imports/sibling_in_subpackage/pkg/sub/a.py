from . import b

def run():
    b.helper()
