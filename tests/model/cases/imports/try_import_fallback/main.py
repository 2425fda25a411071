try:
    from fastlib import speed
except ImportError:
    from slowlib import speed

speed()
