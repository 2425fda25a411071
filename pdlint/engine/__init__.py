"""The engine: the program's files, loading on demand, workers, forks, scheduling."""
