import plugins

def fallback():
    pass

getattr(plugins, "load")()
getattr(plugins, "missing", fallback)()
