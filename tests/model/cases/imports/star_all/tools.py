__all__ = ["visible"]

def visible():
    pass

def other():
    pass
