class Counted:
    def __init__(self, fn):
        self.fn = fn

    def __call__(self):
        return self.fn()

@Counted
def ping():
    pass

ping()
