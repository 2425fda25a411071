"""Reading the input: which files to analyse, their bytes, their parse (PDL900)."""
