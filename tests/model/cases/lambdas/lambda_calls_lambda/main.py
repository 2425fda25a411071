inc = lambda x: x + 1
twice = lambda x: inc(inc(x))
twice(1)
