class Gauge:
    def __init__(self):
        self._level = 0

    @property
    def level(self):
        return self._level

    @level.setter
    def level(self, value):
        self._level = value

g = Gauge()
g.level = 5
