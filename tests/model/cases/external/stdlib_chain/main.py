import os.path
from collections import OrderedDict

os.path.join("a", "b")
od = OrderedDict()
od.move_to_end("x")
