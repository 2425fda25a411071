def action():
    pass

globals()["action"]()
