class Service:
    def __init__(self):
        pass

    def boot(self):
        pass
