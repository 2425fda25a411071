class Engine:
    def ignite(self):
        pass

class Car:
    def __init__(self, engine):
        self.engine = engine

    def start(self):
        self.engine.ignite()

Car(Engine()).start()
