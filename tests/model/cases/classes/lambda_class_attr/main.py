def helper():
    pass

class Action:
    run = lambda self: helper()

Action().run()
