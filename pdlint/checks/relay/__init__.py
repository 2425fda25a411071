"""PDL001 and PDL101: per-variant builders and the relay state they fill."""
