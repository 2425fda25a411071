"""Guards on a variant: PDL107 guard-narrower-than-effect, PDL108 dead-variant-branch."""
