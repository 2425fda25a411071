"""The rules the run itself reports, not a check: PDL900 (a file not read or parsed,
see :mod:`pdlint.source.read`) and PDL901 (a configuration or pack problem)."""

from __future__ import annotations

from pdlint.checks.base import Rule

RULES = (
    Rule(
        code="PDL900",
        name="parse-error",
        summary="A file could not be read or parsed; the run goes on",
        severity="error",
        tags=("reliability",),
        explanation="""\
pdlint could not read or parse the file (a syntax error, an encoding that is
not valid, NUL bytes, an unreadable file). The file contributes no facts to the
analysis; every other file is still analysed. The message carries the
parser's line and column where known.""",
        example="x = (1,  # PDL900: '(' was never closed",
    ),
    Rule(
        code="PDL901",
        name="config-error",
        summary="A configuration or rule-pack problem",
        severity="error",
        tags=("configuration",),
        explanation="""\
A configuration file or rule pack could not be used: malformed TOML, an unknown
key, a value of the wrong type, an unknown rule code. A fatal problem stops the
run with exit code 2 and a message naming the file and the key.""",
        example="[tool.pdlint]\nselcet = [\"PDL1\"]   # PDL901: unknown key 'selcet'",
    ),
)
