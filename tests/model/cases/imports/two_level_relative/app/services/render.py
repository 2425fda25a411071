def helper():
    pass

def paint():
    pass
