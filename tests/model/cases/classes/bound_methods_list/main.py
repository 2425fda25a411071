class Light:
    def on(self):
        pass

class Fan:
    def spin(self):
        pass

actions = [Light().on, Fan().spin]
for act in actions:
    act()
