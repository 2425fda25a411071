def rank(x):
    return x

numbers = [3, 1, 2]
numbers.sort(key=rank)
