def go():
    pass
