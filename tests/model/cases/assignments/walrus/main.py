def helper():
    pass

def pick():
    return helper

if (fn := pick()):
    fn()
