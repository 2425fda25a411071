def main_fn():
    pass

def helper():
    pass

main_fn.callback = helper
main_fn.callback()
