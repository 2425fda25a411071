"""The contract every check keeps: what it reports, reads from the packs, needs
loaded and needs from other checks, and how the engine runs it.

A check is a subclass of :class:`Check` in the ``check`` module of a family package
under :mod:`pdlint.checks`; the engine finds it by walking the package
(:func:`pdlint.checks.catalogue.checks`), so adding a check is adding a package and
its fixtures. Its rules (codes and their texts) live in the family's ``catalogue``
module, which the catalogue reads without importing the analysis; the ``check``
module declares, and imports the analysis in :meth:`Check.begin`, so a run that
reuses the check's findings never imports it.

A check never sees scheduling or caching: the engine (:mod:`pdlint.engine.run`)
builds its model (lazy or eager), loads what :class:`Loading` declares, runs it in
this process or a forked one, keeps and reuses its record. The check reads its
:class:`Context` and returns findings; one whose findings depend on files it learns
of while it runs says what more to load (:meth:`Run.wants`) and is run again.

This module stays import-light: the settings import the catalogue, which imports it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from pdlint.findings import Finding
    from pdlint.model.names import Model
    from pdlint.settings.config import Settings
    from pdlint.settings.packs import Pack

DOCS_URL = "https://github.com/pdlint/pdlint/blob/main/docs/rules.md"

WordGroups = tuple[tuple[str, ...], ...]
Branches = tuple[tuple[str, ...], tuple[str, ...]]


@dataclass(frozen=True)
class Rule:
    """Metadata of one rule."""

    code: str
    name: str
    summary: str
    explanation: str
    example: str
    severity: str  # "error", "warning" or "note" (SARIF levels)
    precision: str = "high"
    tags: tuple[str, ...] = ()

    @property
    def help_uri(self) -> str:
        return f"{DOCS_URL}#{self.code.lower()}-{self.name}"


@dataclass(frozen=True)
class Loading:
    """What a check needs loaded on a lazy model, besides what it reaches by name.

    On a large tree the model is lazy (see :mod:`pdlint.model.names`): it holds the
    modules reached by name resolution, not every file. A check that *enumerates*
    the program (every function with some property) declares what such code must
    contain:

    ``words``: groups of words; every file whose lower-cased text holds all the
    words of one group is loaded before the check runs. A ``*`` in a word stands
    for any run of letters, digits, ``_`` and ``.`` (``disagg*decode`` matches
    ``disaggregation_mode.DECODE``). Choose groups every file the enumeration can
    care about must contain (a missed file is a missed finding), as narrow as that
    allows (each matching file is parsed).

    ``branches``: of those files, only the ones where one of the first words stands
    in the condition of a branch (``if``, ``elif``, ``while``, ``match``, ``case``,
    ``assert``) with one of the second after it (see
    :func:`pdlint.engine.textscan.in_condition`).

    ``scanned``: groups scanned and cached with the others but not loaded: a check
    whose files depend on what it reads elsewhere loads in phases when it runs
    (``model.load_text(gate=..., any_of=..., all_of=...)``), its queries recorded so
    that a later run reuses its findings only when every changed file stays in (or
    out of) their answers.

    ``later``: the gate (groups of its scanned words) and identifier starts
    (``starts`` of ``with_text``) of a query the check will load when it runs; the
    engine parses those files ahead while the other checks run.
    """

    words: WordGroups = ()
    branches: Branches = ((), ())
    scanned: WordGroups = ()
    later: tuple[WordGroups, tuple[str, ...]] = ((), ())


@dataclass
class Context:
    """What the engine gives a check: its model, its pack section, the settings and
    packs, the runs of the checks it requires, and where its counts and warnings go."""

    model: Model
    section: Any  # the check's pack section (an instance of its ``pack_section``)
    packs: Sequence[Pack]  # the active packs (for warnings naming their files)
    settings: Settings
    stats: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    required: Mapping[type[Check], Run] = field(default_factory=dict)
    # call once the check's loading is mostly done: the engine may start other
    # checks in a forked process then (see pdlint.engine.run)
    settled: Callable[[], None] = lambda: None


class Run:
    """One check's run, made by :meth:`Check.begin`; the engine calls its methods."""

    def run(self) -> Iterable[Finding]:
        """The findings (the engine calls this again while :meth:`wants` loads files)."""
        raise NotImplementedError

    def wants(self) -> tuple[str, ...]:
        """Identifiers whose files (any of them, in the text) the check wants loaded;
        when that loads any, the engine runs it again."""
        return ()

    def finish(self) -> None:
        """After every check on the same model ran: write the final counts."""

    def first_phase(self, prefetch: Callable[[list[str]], None]) -> object:
        """On a lazy model, before the others run: the check's first query, with
        the files of its next one given to ``prefetch`` (parsed ahead)."""
        return None

    def load_next(self) -> object:
        """Load the files of the check's next query now (before a fork)."""
        return None


class Check:
    """A check: its rules, pack section, loading, requirements, and how it begins.

    ``isolated``: the check reads a model of its own on a lazy run, loading what it
    needs, and gives the same findings whatever the others loaded: the engine may
    run it in a forked process and keeps its record apart.
    """

    rules: ClassVar[tuple[Rule, ...]] = ()
    codes: ClassVar[tuple[str, ...]] = ()  # of ``rules``, set for each subclass
    pack_section: ClassVar[type | None] = None  # the pack data the check reads
    loading: ClassVar[Loading] = Loading()
    requires: ClassVar[tuple[type[Check], ...]] = ()  # checks whose runs it reads
    isolated: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.codes = tuple(rule.code for rule in cls.rules)

    @classmethod
    def read_packs(cls, packs: Sequence[Pack]) -> Any:
        """The check's pack section, from the active packs."""
        return None

    @classmethod
    def scanned_for(cls, packs: Iterable[Pack]) -> WordGroups:
        """Word groups to scan besides ``loading.scanned`` for these packs."""
        return ()

    @classmethod
    def begin(cls, context: Context) -> Run:
        """Start a run on ``context`` (nothing is analysed before :meth:`Run.run`)."""
        raise NotImplementedError
