def compute():
    return 1

result = eval("compute() + 1")
