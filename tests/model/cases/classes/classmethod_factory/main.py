class Widget:
    def __init__(self, size):
        self.size = size

    @classmethod
    def small(cls):
        return cls(1)

    def render(self):
        pass

w = Widget.small()
w.render()
