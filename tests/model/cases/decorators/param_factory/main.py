def repeat(times):
    def deco(fn):
        def run():
            for _ in range(times):
                fn()
        return run
    return deco

@repeat(3)
def beep():
    pass

beep()
