class Holder:
    pass

def job():
    pass

h = Holder()
setattr(h, "task", job)
h.task()
