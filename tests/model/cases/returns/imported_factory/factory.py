from models import Server

def make():
    return Server()
