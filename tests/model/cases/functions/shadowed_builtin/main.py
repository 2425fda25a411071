def len(x):
    return 0

len([1])
