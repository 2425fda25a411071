from lib.base import BaseJob

class Job(BaseJob):
    def run(self):
        self.prepare()
