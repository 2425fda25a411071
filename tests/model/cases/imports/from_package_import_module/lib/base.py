class BaseJob:
    def __init__(self):
        pass

    def prepare(self):
        pass
