from typing import Callable

def on_event():
    pass

handler: Callable[[], None] = on_event
handler()
