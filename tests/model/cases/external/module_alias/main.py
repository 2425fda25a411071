import json as j

def dump(obj):
    return j.dumps(obj)

dump({})
