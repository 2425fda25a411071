def act():
    pass

class Bag:
    def __iter__(self):
        yield act

for item in Bag():
    item()
