def check(x):
    if x < 0:
        raise ValueError("negative")

check(1)
