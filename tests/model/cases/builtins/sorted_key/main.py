def by_size(x):
    return x

values = sorted([3, 1], key=by_size)
