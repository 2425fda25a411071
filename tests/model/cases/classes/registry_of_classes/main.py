class Cat:
    def speak(self):
        pass

class Dog:
    def speak(self):
        pass

registry = {"cat": Cat, "dog": Dog}

def build(kind):
    return registry[kind]()

build("cat").speak()
