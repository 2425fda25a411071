def make_adder(n):
    def adder(x):
        def finish():
            return x + n
        return finish
    return adder

make_adder(1)(2)()
