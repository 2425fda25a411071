class Server:
    def __init__(self):
        pass

    def serve(self):
        pass
