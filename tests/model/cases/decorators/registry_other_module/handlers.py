from registry import register

@register
def alpha():
    pass

@register
def beta():
    pass
