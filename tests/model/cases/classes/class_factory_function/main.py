def make_handler(tag):
    class Handler:
        def handle(self):
            pass
    return Handler

H = make_handler("x")
H().handle()
