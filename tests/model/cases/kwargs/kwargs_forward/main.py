def target(callback=None):
    callback()

def forward(**kwargs):
    target(**kwargs)

def leaf():
    pass

forward(callback=leaf)
