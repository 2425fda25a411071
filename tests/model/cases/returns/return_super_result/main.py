class Base:
    def make(self):
        return helper

def helper():
    pass

class Child(Base):
    def make(self):
        return super().make()

Child().make()()
