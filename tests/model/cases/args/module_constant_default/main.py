def handler():
    pass

DEFAULT = handler

def run(cb=DEFAULT):
    cb()

run()
