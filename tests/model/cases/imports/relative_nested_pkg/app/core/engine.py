from ..util.helpers import assist
from . import config

def start():
    assist()
    config.load()
