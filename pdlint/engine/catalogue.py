"""The rules the run itself reports, not a check: PDL900 (a file not read or parsed,
see :mod:`pdlint.source.read`), PDL901 (a configuration or pack problem) and PDL902
(a ``# noqa`` that suppresses nothing, see :mod:`pdlint.policy.selection`)."""

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
    Rule(
        code="PDL902",
        name="unused-noqa",
        summary="A `# noqa: PDL...` comment that suppresses nothing",
        severity="warning",
        tags=("suppression",),
        explanation="""\
A `# noqa: PDL...` comment names a code (or prefix) with no finding to suppress
on that line: the finding it was written for is gone, or the comment is on the
wrong line. Remove the code (or the whole comment), as ruff's RUF100 asks. A
code is judged only when every rule it names ran: a code that `--select` or
`--ignore` (or a per-file ignore) leaves out is never reported, nor are the
run's own codes (PDL900 to PDL902), other tools' codes or a bare `# noqa`. A
code that names no pdlint rule is reported as unknown. The comment for a string
spanning lines goes after its last line, as ruff reads it; `pdlint check
--add-noqa` writes the comments this rule then checks.""",
        example="x = batch.spec_info  # noqa: PDL101   # PDL902: no PDL101 on this line",
    ),
)
