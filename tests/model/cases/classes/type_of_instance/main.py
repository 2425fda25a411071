class Shape:
    def __init__(self):
        pass

    def clone(self):
        return type(self)()

    def draw(self):
        pass

Shape().clone().draw()
