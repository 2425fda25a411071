import enum


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"

    def describe(self):
        pass


for mode in Mode:
    mode.describe()

Mode["FAST"].describe()
