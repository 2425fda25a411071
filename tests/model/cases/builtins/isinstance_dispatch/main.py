def handle_text():
    pass

def process(value):
    if isinstance(value, str):
        handle_text()

process("x")
