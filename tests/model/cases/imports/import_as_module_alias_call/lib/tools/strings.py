def shout():
    pass
