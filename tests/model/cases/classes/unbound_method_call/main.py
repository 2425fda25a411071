class Counter:
    def tick(self):
        pass

c = Counter()
Counter.tick(c)
method = Counter.tick
method(c)
