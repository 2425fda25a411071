class Disk:
    def spin(self):
        pass

class Drive:
    def __init__(self):
        self.disk = Disk()

class Computer:
    def __init__(self):
        self.drive = Drive()

Computer().drive.disk.spin()
