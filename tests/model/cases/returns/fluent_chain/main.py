class Builder:
    def add(self):
        return self

    def build(self):
        pass

Builder().add().add().build()
