class Box:
    def __init__(self):
        self.opener = lambda: self.open()

    def open(self):
        pass

Box().opener()
