def base():
    pass

outer = lambda: (lambda: base())
outer()()
