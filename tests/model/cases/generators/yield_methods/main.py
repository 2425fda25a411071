class Pipeline:
    def load(self):
        pass

    def save(self):
        pass

    def steps(self):
        yield self.load
        yield self.save

p = Pipeline()
for step in p.steps():
    step()
