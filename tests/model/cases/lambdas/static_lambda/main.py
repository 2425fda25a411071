def helper():
    pass

class Tools:
    tool = staticmethod(lambda: helper())

Tools.tool()
Tools().tool()
