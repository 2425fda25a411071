import pong

def start():
    pong.reply()

def echo():
    pass
