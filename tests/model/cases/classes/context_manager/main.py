class Session:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def query(self):
        pass

with Session() as s:
    s.query()
