def default_cb():
    pass

def special_cb():
    pass

def run(*, cb=default_cb):
    cb()

run()
run(cb=special_cb)
