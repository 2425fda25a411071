import setup_mod

setup_mod.ready()
