def weight(x):
    return x

values = [3, 1, 2]
biggest = max(values, key=weight)
total = sum(values)
flag = any(values)
