def a():
    pass

def b():
    pass

queue = []
queue.append(a)
queue.insert(0, b)
for job in queue:
    job()
