class Slot:
    pass

def filler():
    pass

a = Slot()
a.inner = Slot()
a.inner.fn = filler
a.inner.fn()
