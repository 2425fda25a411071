def yes():
    pass

def no():
    pass

def choose(flag):
    if flag:
        return yes
    return no

choose(True)()
