words = "alpha beta".split()
joined = ",".join(words)
joined.upper()
