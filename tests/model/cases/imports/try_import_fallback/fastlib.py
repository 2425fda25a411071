def speed():
    pass
