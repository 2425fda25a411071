"""PDL201: handoff layouts that depend on a per-role setting."""
