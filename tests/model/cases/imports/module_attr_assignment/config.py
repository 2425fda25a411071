hook = None
