class route:
    def __init__(self, path):
        self.path = path

    def __call__(self, fn):
        return fn

@route("/home")
def page():
    pass

page()
