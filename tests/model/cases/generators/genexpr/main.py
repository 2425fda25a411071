def double(x):
    return x

results = list(double(i) for i in range(3))
