def notify():
    pass

def configure(**opts):
    opts["hook"]()

configure(hook=notify)
