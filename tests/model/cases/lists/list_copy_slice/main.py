def keep():
    pass

original = [keep]
clone = original[:]
clone[0]()
