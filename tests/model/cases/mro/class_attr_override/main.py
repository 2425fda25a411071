def base_impl():
    pass

def child_impl():
    pass

class Base:
    impl = staticmethod(base_impl)

    def run(self):
        self.impl()

class Child(Base):
    impl = staticmethod(child_impl)

Child().run()
