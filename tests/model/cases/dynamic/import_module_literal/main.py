import importlib

mod = importlib.import_module("plugin")
mod.run()
