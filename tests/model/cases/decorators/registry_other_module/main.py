from registry import HANDLERS
import handlers

for name, fn in HANDLERS.items():
    fn()
