class A:
    def __init__(self, x):
        pass

class B(A):
    def __init__(self, x, y):
        super().__init__(x)

class C(B):
    def __init__(self):
        super().__init__(1, 2)

C()
