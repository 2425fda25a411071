from errors import Invalid

def validate():
    try:
        int("x")
    except ValueError as exc:
        raise Invalid("bad") from exc

validate()
