class Pool:
    @classmethod
    def spawn(cls):
        return cls()

    def use(self):
        pass

p = Pool()
p.spawn().use()
