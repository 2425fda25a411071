class Template:
    def execute(self):
        self.step()

    def step(self):
        pass

class Concrete(Template):
    def step(self):
        pass

Concrete().execute()
