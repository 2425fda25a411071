def hit():
    pass
