def p():
    pass

def q():
    pass

def r():
    pass

(a, (b, c)) = (p, [q, r])
c()
a()
