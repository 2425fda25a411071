from tools import *

hammer.hit()
