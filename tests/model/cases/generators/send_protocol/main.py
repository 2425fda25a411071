def handler():
    pass

def worker():
    while True:
        fn = yield
        fn()

w = worker()
next(w)
w.send(handler)
