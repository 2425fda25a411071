def countdown(n):
    if n > 0:
        countdown(n - 1)

countdown(3)
