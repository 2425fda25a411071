def alpha():
    pass

def beta():
    pass

def invoke_all(*callbacks):
    for cb in callbacks:
        cb()

def relay(*items):
    invoke_all(*items)

relay(alpha, beta)
