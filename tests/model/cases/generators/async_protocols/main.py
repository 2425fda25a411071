class Stream:
    def __aiter__(self):
        return self

    async def __anext__(self):
        raise StopAsyncIteration

class Conn:
    async def __aenter__(self):
        return self

    async def __aexit__(self, *args):
        pass

async def consume():
    async with Conn() as c:
        async for item in Stream():
            pass
