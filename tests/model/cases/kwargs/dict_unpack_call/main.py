def handler():
    pass

def run(on_done):
    on_done()

options = {"on_done": handler}
run(**options)
