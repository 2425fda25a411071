class Model:
    def __init__(self):
        pass

    def save(self):
        pass
