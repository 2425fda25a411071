from shapes import Square

sq = Square.unit()
sq.area()
