class Grand:
    def __init__(self):
        pass

    def greet(self):
        pass

class Parent(Grand):
    pass

class Kid(Parent):
    def greet(self):
        Grand.greet(self)

Kid().greet()
