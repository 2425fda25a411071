class Engine:
    def start(self):
        pass

def starter(obj):
    return obj.start

def launch(obj):
    starter(obj)()

launch(Engine())
