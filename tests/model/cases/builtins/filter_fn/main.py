def keep(x):
    return True

kept = list(filter(keep, [1, 2]))
