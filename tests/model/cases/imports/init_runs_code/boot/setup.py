def configure():
    pass
