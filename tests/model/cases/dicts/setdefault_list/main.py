def hook1():
    pass

hooks = {}
hooks.setdefault("start", []).append(hook1)
for h in hooks["start"]:
    h()
