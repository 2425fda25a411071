class Task:
    def __init__(self, action=None):
        self.action = action

    def run(self):
        self.action()

def job():
    pass

params = {"action": job}
Task(**params).run()
