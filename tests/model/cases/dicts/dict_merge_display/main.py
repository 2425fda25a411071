def base_fn():
    pass

def extra_fn():
    pass

base = {"a": base_fn}
merged = {**base, "b": extra_fn}
merged["a"]()
merged["b"]()
