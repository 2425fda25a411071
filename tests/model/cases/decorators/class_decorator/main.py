REGISTRY = []

def register(cls):
    REGISTRY.append(cls)
    return cls

@register
class Plugin:
    def __init__(self):
        pass

for plugin_cls in REGISTRY:
    plugin_cls()
