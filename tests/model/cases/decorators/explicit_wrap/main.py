def deco(fn):
    def wrapped():
        fn()
    return wrapped

def task():
    pass

task = deco(task)
task()
