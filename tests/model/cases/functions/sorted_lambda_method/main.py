class Item:
    def weight(self):
        return 1

items = [Item(), Item()]
ordered = sorted(items, key=lambda it: it.weight())
