class Model:
    def save(self):
        pass
