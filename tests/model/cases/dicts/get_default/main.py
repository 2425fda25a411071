def known():
    pass

def fallback_handler():
    pass

handlers = {"a": known}
handlers.get("b", fallback_handler)()
