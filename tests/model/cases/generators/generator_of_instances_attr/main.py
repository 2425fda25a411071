class Task:
    def __init__(self, fn):
        self.fn = fn

    def run(self):
        self.fn()

def a():
    pass

def b():
    pass

def tasks():
    for f in (a, b):
        yield Task(f)

for t in tasks():
    t.run()
