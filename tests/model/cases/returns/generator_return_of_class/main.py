class A:
    def go(self):
        pass

def factory():
    return A

factory()().go()
