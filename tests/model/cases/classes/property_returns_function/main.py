def loader():
    pass

class Config:
    @property
    def hook(self):
        return loader

Config().hook()
