class Parser:
    def __init__(self):
        self.handlers = {"num": self.on_num, "word": self.on_word}

    def on_num(self):
        pass

    def on_word(self):
        pass

    def feed(self, kind):
        self.handlers[kind]()

Parser().feed("word")
