"""Preconditions on the handoff payload: PDL301 soft-handoff-precondition."""
