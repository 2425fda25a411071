def run():
    from helpers import work
    work()

run()
