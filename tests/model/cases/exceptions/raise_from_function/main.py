class AppError(Exception):
    def __init__(self, msg):
        self.msg = msg

def fail():
    raise AppError("boom")

try:
    fail()
except AppError as err:
    pass
