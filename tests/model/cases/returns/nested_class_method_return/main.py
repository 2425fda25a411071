class Outer:
    class Helper:
        def work(self):
            pass

    def helper(self):
        return Outer.Helper()

Outer().helper().work()
