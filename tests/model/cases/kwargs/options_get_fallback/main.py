def fallback():
    pass

def custom():
    pass

def run(**options):
    options.get("cb", fallback)()

run()
run(cb=custom)
