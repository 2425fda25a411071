def helper():
    pass

def factory():
    tool = helper

    class Runner:
        def run(self):
            tool()

    return Runner()

factory().run()
