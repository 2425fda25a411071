def real():
    pass

slot = None

def install():
    global slot
    slot = real

install()
slot()
