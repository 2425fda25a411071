def task():
    pass

class Store:
    def __init__(self):
        self.data = {}

def fill(store):
    store.data["job"] = task

s = Store()
fill(s)
s.data["job"]()
