class HttpError(Exception):
    def __init__(self, code):
        self.code = code

    def render(self):
        pass

def fail(code):
    raise HttpError(code)

try:
    fail(404)
except HttpError as err:
    err.render()
