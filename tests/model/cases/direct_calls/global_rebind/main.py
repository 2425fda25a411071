def a():
    pass

def b():
    pass

current = a

def switch():
    global current
    current = b

def run():
    current()

switch()
run()
