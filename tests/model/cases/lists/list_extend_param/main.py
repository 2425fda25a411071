def a():
    pass

def b():
    pass

def collect(into):
    into.extend([a, b])

bucket = []
collect(bucket)
for fn in bucket:
    fn()
