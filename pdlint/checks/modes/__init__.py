"""PDL102 and PDL103: batch modes that bypass the builder."""
