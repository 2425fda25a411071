class Reader:
    def read(self):
        pass

class Writer:
    def write(self):
        pass

class File(Reader, Writer):
    def sync(self):
        self.read()
        self.write()

File().sync()
