def task_a():
    pass

def task_b():
    pass

def outer():
    chosen = task_a
    def choose():
        nonlocal chosen
        chosen = task_b
    choose()
    chosen()

outer()
