def compute():
    pass

exec("compute()")
