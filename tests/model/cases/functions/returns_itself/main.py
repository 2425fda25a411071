def chain():
    return chain

chain()()()
