import contextlib

def cleanup():
    pass

@contextlib.contextmanager
def managed():
    yield cleanup

with managed() as fn:
    fn()
