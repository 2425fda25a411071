import threading

def work():
    pass

t = threading.Thread(target=work)
t.start()
