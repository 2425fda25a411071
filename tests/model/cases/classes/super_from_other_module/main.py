from base import Service

class Api(Service):
    def __init__(self):
        super().__init__()
        self.boot()

Api()
