import asyncio

def parse():
    pass

async def fetch():
    return parse

async def main_task():
    fn = await fetch()
    fn()

asyncio.run(main_task())
