"""The checks: each reads the program model and yields findings with paths.

Each declares the codes it reports (``codes``); a check none of whose codes the
settings select does not run (see :func:`pdlint.api.running_checks`).

On a large tree the model is lazy (see :mod:`pdlint.model.names`): it holds the
modules reached from the entry points by name resolution, not every file. A
check that follows names (calls, types, bases) needs nothing more. A check that
*enumerates* the program (every function with some property, wherever it is)
declares what such code must contain, as a class attribute::

    relevant_words: ClassVar[tuple[tuple[str, ...], ...]] = (("raise", "decode"),)

Each group is a tuple of words; every file whose lower-cased text holds all
the words of one group is loaded before any check runs, so the enumeration sees
those files. A ``*`` in a word stands for any run of letters, digits, ``_`` and
``.``: ``disagg*decode`` matches ``disaggregation_mode.DECODE``. Choose groups
that every file the enumeration can care about must contain (a superset is
safe, a missed file is a missed finding), and as narrow as that allows: each
matching file is parsed. A check whose enumeration reads events under a
condition (a ``raise`` under a decode-mode test) may narrow them further::

    relevant_branches: ClassVar[tuple[tuple[str, ...], tuple[str, ...]]] = (
        ("'decode'",), ("raise",),
    )

and only the files where one of the first words stands in the condition of a
branch (``if``, ``elif``, ``while``, ``match``, ``case``, ``assert``: where the
indexer takes an event's guards from) with one of the second after it are
loaded (see :func:`pdlint.engine.textscan.in_condition`).

A check whose files depend on what it reads in other files loads in phases
instead, when it runs: ``scanned_words`` (same form) are scanned and cached
with the others but not loaded; the check then calls
``model.load_text(gate=..., any_of=..., all_of=...)`` with groups of those words
(read from the cached scan) and with identifiers taken from the facts loaded so
far (matched case-sensitively in the bytes). On an eager model the call does
nothing. Each query is recorded like the others, so a later run reuses the
findings only when every changed file stays in (or out of) its answer.
:class:`pdlint.checks.layout.check.LayoutCheck` is the example. Such a check may also
declare ``loaded_later``: the gate (groups of its scanned words) and the
identifier starts (``starts`` of ``with_text``) of a query it will load when it
runs; those files are parsed ahead, in the worker processes,
while the other checks run (nothing else changes: they enter the model at the
check's own query).
"""
