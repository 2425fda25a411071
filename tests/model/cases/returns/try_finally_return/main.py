def target():
    pass

def get():
    try:
        return target
    finally:
        pass

get()()
