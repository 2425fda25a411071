from .. import services
from ..services.render import paint as draw

def show():
    services.helper()
    draw()
