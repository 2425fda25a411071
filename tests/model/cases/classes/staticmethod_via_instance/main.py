class Util:
    @staticmethod
    def norm(x):
        return x

    def apply(self):
        return self.norm(1)

Util().apply()
