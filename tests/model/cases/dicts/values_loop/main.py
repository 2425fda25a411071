def low():
    pass

def high():
    pass

levels = {1: low, 2: high}
for action in levels.values():
    action()
