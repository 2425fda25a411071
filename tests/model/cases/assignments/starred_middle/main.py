def head():
    pass

def mid():
    pass

def tail():
    pass

first, *middle, last = head, mid, mid, tail
last()
for m in middle:
    m()
