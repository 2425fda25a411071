"""Deciding what is reported: selection, per-file ignores, ``# noqa``, baselines."""
