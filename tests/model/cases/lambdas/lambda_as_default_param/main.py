def handler():
    pass

def run(cb=lambda: handler()):
    cb()

run()
