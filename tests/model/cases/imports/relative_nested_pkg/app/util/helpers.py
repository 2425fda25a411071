def assist():
    pass
