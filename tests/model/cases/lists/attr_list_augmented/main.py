def one():
    pass

def two():
    pass

class Queue:
    def __init__(self):
        self.items = [one]

    def add(self):
        self.items += [two]

    def run(self):
        for fn in self.items:
            fn()

q = Queue()
q.add()
q.run()
