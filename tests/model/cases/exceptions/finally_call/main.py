def cleanup():
    pass

def work():
    pass

try:
    work()
finally:
    cleanup()
