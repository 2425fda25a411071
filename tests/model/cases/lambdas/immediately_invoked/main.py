def target():
    pass

(lambda: target())()
