def start():
    pass

def later():
    pass

fn = start
for _ in range(2):
    fn()
    fn = later
