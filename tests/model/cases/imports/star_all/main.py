from tools import *
visible()
