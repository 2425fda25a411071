from threading import Thread

class Worker(Thread):
    def run(self):
        pass

w = Worker()
w.start()
w.run()
