def deep():
    pass
