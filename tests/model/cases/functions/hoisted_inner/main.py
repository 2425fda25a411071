def outer():
    def helper():
        inner()

    def inner():
        pass

    helper()

outer()
