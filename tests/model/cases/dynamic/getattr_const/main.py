class Tool:
    def cut(self):
        pass

t = Tool()
getattr(t, "cut")()
