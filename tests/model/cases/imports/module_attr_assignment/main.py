import config
from impl import handler

config.hook = handler
config.hook()
