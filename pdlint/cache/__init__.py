"""Everything kept between runs, behind one boundary: facts, file stats, run records."""
