def start():
    pass

def stop():
    pass

steps = [("start", start), ("stop", stop)]
for label, fn in steps:
    fn()
