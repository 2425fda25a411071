class A:
    def greet(self):
        pass

class B(A):
    pass

class C(B):
    def greet(self):
        super().greet()

C().greet()
