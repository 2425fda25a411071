class Failure(Exception):
    def __init__(self, reason):
        self.reason = reason

class Service:
    def call(self):
        try:
            self.step()
        except Failure:
            raise Failure("again")

    def step(self):
        raise Failure("first")

Service().call()
