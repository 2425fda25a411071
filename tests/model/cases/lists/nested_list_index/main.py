def a():
    pass

def b():
    pass

grid = [[a], [b]]
grid[1][0]()
