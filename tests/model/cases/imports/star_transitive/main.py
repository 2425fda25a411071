from util import *

help_me()
