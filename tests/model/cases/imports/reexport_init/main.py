import shapes

shapes.Circle().area()
