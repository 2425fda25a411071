class Base:
    def __init__(self):
        pass

class Derived(Base):
    def __init__(self):
        Base.__init__(self)

Derived()
