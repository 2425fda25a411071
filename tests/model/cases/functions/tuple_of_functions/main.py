def f1():
    pass

def f2():
    pass

pipeline = (f1, f2)
for step in pipeline:
    step()
pipeline[1]()
