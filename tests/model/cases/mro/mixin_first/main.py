class LogMixin:
    def log(self):
        pass

class Base:
    def log(self):
        pass

    def run(self):
        self.log()

class Job(LogMixin, Base):
    pass

Job().run()
