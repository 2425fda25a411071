def keep(x):
    return True

def transform(x):
    return x

out = [transform(x) for x in range(3) if keep(x)]
