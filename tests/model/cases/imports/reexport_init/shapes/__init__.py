from .circle import Circle
