def shout():
    pass

class Speaker:
    action = shout

    def go(self):
        Speaker.action()

Speaker().go()
