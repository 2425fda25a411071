def only():
    pass

stack = [only]
stack.pop()()
