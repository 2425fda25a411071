import enum

class Color(enum.Enum):
    RED = 1
    BLUE = 2

    def paint(self):
        pass

Color.RED.paint()
Color(2).paint()
