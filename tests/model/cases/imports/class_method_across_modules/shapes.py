from geometry import Polygon

class Square(Polygon):
    @classmethod
    def unit(cls):
        return cls()
