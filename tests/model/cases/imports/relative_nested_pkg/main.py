from app.core.engine import start

start()
