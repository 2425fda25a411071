__all__ = ["hammer"]
