class Base:
    @classmethod
    def create(cls):
        return cls()

    def run(self):
        pass

class Child(Base):
    def __init__(self):
        pass

    def run(self):
        pass

c = Child.create()
c.run()
