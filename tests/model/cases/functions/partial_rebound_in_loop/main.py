import functools


def base(a, b=0, c=0):
    pass


fn = base
for i in range(3):
    fn = functools.partial(fn, i)
fn()
