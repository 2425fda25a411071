"""The rule catalogue and the checks, both gathered by walking :mod:`pdlint.checks`.

Everything that describes a rule to a user (``pdlint rules``, ``pdlint rule``,
SARIF ``rules[]``, the language server's code descriptions, ``docs/rules.md``)
reads :data:`RULES`: the ``RULES`` of every check family's ``catalogue`` module and of
:mod:`pdlint.engine.catalogue`, by code. The engine runs :func:`checks`: every
:class:`~pdlint.checks.base.Check` defined in a ``check`` module under the package
(a family's declaration, which imports its analysis only when it begins). Adding a
check is adding a family package there; no list names it.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Iterator
from types import ModuleType

import pdlint.checks
from pdlint.checks.base import DOCS_URL, Check, Rule
from pdlint.engine import catalogue as engine_rules

__all__ = ["DOCS_URL", "RULES", "Rule", "checks", "get_rule"]


def _modules(leaf: str) -> Iterator[ModuleType]:
    """The modules named ``leaf`` under :mod:`pdlint.checks`, imported, in name order."""
    found = pkgutil.walk_packages(pdlint.checks.__path__, f"{pdlint.checks.__name__}.")
    for info in sorted(found, key=lambda m: m.name):
        if info.name.rsplit(".", 1)[1] == leaf:
            yield importlib.import_module(info.name)


def _gather() -> dict[str, Rule]:
    # the families' catalogue modules alone: the settings read this catalogue as they are
    # imported, before the checks (which read the settings) can be
    rules = [r for module in _modules("catalogue") for r in getattr(module, "RULES", ())]
    rules += engine_rules.RULES
    return {rule.code: rule for rule in sorted(rules, key=lambda r: r.code)}


RULES: dict[str, Rule] = _gather()


def get_rule(code: str) -> Rule | None:
    """Return the rule with ``code`` (case-insensitive), or None."""
    return RULES.get(code.upper())


@functools.cache
def checks() -> tuple[type[Check], ...]:
    """Every check defined in a ``check`` module under :mod:`pdlint.checks`, by their
    first code."""
    found = [
        value
        for module in _modules("check")
        for value in vars(module).values()
        if isinstance(value, type)
        and issubclass(value, Check)
        and value.__module__ == module.__name__
        and value.rules
    ]
    return tuple(sorted(found, key=lambda check: check.codes))
