class Worker:
    def work(self):
        pass

class Manager:
    def work(self):
        pass

staff = [Worker(), Manager()]
for person in staff:
    person.work()
