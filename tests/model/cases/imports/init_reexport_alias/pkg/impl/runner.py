def execute():
    pass
