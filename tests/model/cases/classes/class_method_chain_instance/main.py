class Query:
    def __init__(self, table):
        self.table = table

    @classmethod
    def on(cls, table):
        return cls(table)

    def where(self):
        return self

    def run(self):
        pass

Query.on("t").where().run()
