def compute():
    return 1

def use(x=compute()):
    pass

use()
