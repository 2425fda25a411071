def handler():
    pass
