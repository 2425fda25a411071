"""The checks: each reads the program model and yields findings with paths."""
