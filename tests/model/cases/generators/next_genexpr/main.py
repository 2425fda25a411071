def pick():
    pass

first = next(f for f in [pick])
first()
