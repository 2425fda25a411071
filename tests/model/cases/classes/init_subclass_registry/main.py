class Plugin:
    registry = []

    def __init_subclass__(cls, **kwargs):
        Plugin.registry.append(cls)


class Csv(Plugin):
    def load(self):
        pass


class Json(Plugin):
    def load(self):
        pass


for plugin in Plugin.registry:
    plugin().load()
