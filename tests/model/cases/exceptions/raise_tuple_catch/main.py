class E1(Exception):
    def info(self):
        pass

class E2(Exception):
    def info(self):
        pass

def risky():
    raise E1()

try:
    risky()
except (E1, E2) as e:
    e.info()
