class Robot:
    def move(self):
        pass

def turbo():
    pass

r = Robot()
r.move = turbo
r.move()
