settings = {"depth": 2}
for key, value in settings.items():
    pass
numbers = [1, 2]
numbers.append(3)
settings.get("depth")
