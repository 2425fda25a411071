def fallback():
    pass

def primary():
    pass

def run(cb=fallback):
    cb()

run()
run(primary)
