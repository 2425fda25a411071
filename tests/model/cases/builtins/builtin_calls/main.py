items = [3, 1, 2]
total = len(items)
ordered = sorted(items)
print(total, ordered)
