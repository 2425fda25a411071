def a():
    pass

def b():
    pass

fs = []
for h in (a, b):
    fs.append(lambda h=h: h())
for f in fs:
    f()
