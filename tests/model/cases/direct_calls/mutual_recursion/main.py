def ping(n):
    if n:
        pong(n - 1)

def pong(n):
    if n:
        ping(n - 1)

ping(3)
