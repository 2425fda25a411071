class Base:
    @classmethod
    def make(cls):
        return cls()

class Special(Base):
    @classmethod
    def make(cls):
        return super().make()

    def use(self):
        pass

Special.make().use()
