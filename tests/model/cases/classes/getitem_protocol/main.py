def first():
    pass

class Table:
    def __init__(self):
        self.rows = [first]

    def __getitem__(self, index):
        return self.rows[index]

t = Table()
t[0]()
