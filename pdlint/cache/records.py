"""Run records: a run's (or one check's) findings kept under a key made of what
they depend on, and reused while nothing they read changed; a check's reading of
the program, which records what it asked (:class:`Reading`)."""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from pdlint.cache.line_moves import move_findings
from pdlint.cache.store import CODE, FactStore, make_key
from pdlint.engine.program import Program
from pdlint.engine.queries import selects
from pdlint.engine.textscan import Branches, WordGroups, scan_source
from pdlint.facts.types import ModuleFacts, Span
from pdlint.findings import Finding

__all__ = [
    "Reading",
    "Reads",
    "RunRecord",
    "check_key",
    "previous_run",
    "run_key",
    "store_record",
]


@dataclass
class Reads:
    """What one check asked of the program through a :class:`Reading`."""

    modules: set[str] = field(default_factory=set)  # asked to load (found or not)
    looked_up: set[str] = field(default_factory=set)
    asked: set[tuple[object, ...]] = field(default_factory=set)  # queries (their keys)


class Reading:
    """A program as one check's lazy model sees it: the same answers, with a record
    of what the check asked (:attr:`reads`), so that its findings can be reused
    while nothing it read changed (see :meth:`RunRecord.of_reads`)."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self.reads = Reads()

    def _asked(self, answer: Callable[[], list[str]]) -> list[str]:
        """``answer()``, with the queries the program records meanwhile in :attr:`reads`."""
        outer, self.program.reading = self.program.reading, self.reads
        try:
            return answer()
        finally:
            self.program.reading = outer

    def __contains__(self, module: str) -> bool:
        self.reads.looked_up.add(module)
        return module in self.program

    def load(self, modules: Iterable[str]) -> list[ModuleFacts]:
        wanted = list(modules)
        self.reads.modules.update(wanted)
        return self.program.load(wanted)

    def defining(self, pieces: Iterable[str], *, ignore_case: bool = False) -> list[str]:
        return self._asked(lambda: self.program.defining(pieces, ignore_case=ignore_case))

    def class_headers_naming(self, words: set[str]) -> list[str]:
        return self._asked(lambda: self.program.class_headers_naming(words))

    def with_text(
        self,
        *,
        gate: WordGroups = (),
        any_of: Iterable[str] = (),
        all_of: WordGroups = (),
        starts: Iterable[str] = (),
        branches: Branches = ((), ()),
        record: bool = True,
    ) -> list[str]:
        return self._asked(
            lambda: self.program.with_text(
                gate=gate,
                any_of=any_of,
                all_of=all_of,
                starts=starts,
                branches=branches,
                record=record,
            )
        )

    def aliases(self) -> dict[str, set[str]]:
        self.reads.asked.add(("aliases",))
        return self.program.aliases()

    def source_text(self, module: str) -> str | None:
        # a filter of what the facts hold (see RunRecord.holds_for): not a dependency
        return self.program.source_text(module)


@dataclass
class RunRecord:
    """What a run's findings depend on, and the findings (before policy).

    The analysis is a function of the files it loaded and of the answers the
    program gave it (which modules exist, which files a text query selects).
    A later run whose files give the same loaded files and the same answers
    would compute the same findings, so it reuses them instead.
    """

    files: dict[str, tuple[str, str]]  # display -> (module, digest); "" when unreadable
    modules: dict[str, str]  # module -> the display of the file that stands for it
    loaded: set[str]  # displays parsed or read from the fact cache
    present: set[str]  # module names looked up, found
    absent: set[str]  # module names looked up, not found
    asked: dict[tuple[object, ...], tuple[object, ...]]
    aliases: dict[str, tuple[tuple[str, str], ...]]  # display -> its ``as`` pairs
    findings: list[Finding]
    stats: dict[str, int]
    whole: bool  # every file was parsed: any change counts
    warnings: tuple[str, ...] = ()  # what the analysis warned about (names matching nothing)
    facts: dict[str, str] = field(default_factory=dict)  # display -> digest of its facts

    @classmethod
    def of(
        cls,
        program: Program,
        findings: list[Finding],
        stats: dict[str, int],
        whole: bool,
        warnings: tuple[str, ...] = (),
    ) -> RunRecord:
        looked = program.looked_up
        record = cls._record(
            program,
            loaded=set(program.done) | {e.source.display for e in program.entries if e.error},
            looked=looked,
            asked=dict(program.asked),
            findings=findings,
            stats=stats,
            whole=whole,
            warnings=warnings,
            facts=dict(program.fact_digests),
        )
        for other in program.reused:  # a check's findings taken from its own record
            record.loaded |= other.loaded
            record.present |= other.present
            record.absent |= other.absent
            for query, answer in other.asked.items():
                record.asked.setdefault(query, answer)
            for display, digest in other.facts.items():
                record.facts.setdefault(display, digest)
        return record

    @classmethod
    def of_reads(
        cls,
        program: Program,
        reads: Reads,
        findings: list[Finding],
        stats: dict[str, int],
        warnings: tuple[str, ...] = (),
    ) -> RunRecord:
        """The record of one check's findings and warnings: what it asked through a
        :class:`Reading` (and the program's top-level packages, which choose the
        rule packs that configure it). The files it loaded that did not parse
        give their PDL900 with its findings, as a run reusing them parses nothing."""
        by_module = program.by_module
        loaded = {by_module[m].source.display for m in reads.modules if m in by_module}
        asked = {q: program.asked[q] for q in reads.asked if q in program.asked}
        asked[("tops",)] = tuple(sorted(program.tops()))
        errors = [program.errors[d] for d in sorted(loaded) if d in program.errors]
        return cls._record(
            program,
            loaded=loaded,
            looked=reads.looked_up | reads.modules,
            asked=asked,
            findings=[*findings, *errors],
            stats=stats,
            whole=False,
            warnings=warnings,
            facts={d: program.fact_digests[d] for d in loaded if d in program.fact_digests},
        )

    @classmethod
    def _record(
        cls,
        program: Program,
        *,
        loaded: set[str],
        looked: set[str],
        asked: dict[tuple[object, ...], tuple[object, ...]],
        findings: list[Finding],
        stats: dict[str, int],
        whole: bool,
        warnings: tuple[str, ...],
        facts: dict[str, str],
    ) -> RunRecord:
        scans = program.index.scanned or {}
        return cls(
            files={e.source.display: (e.module, e.digest) for e in program.entries},
            modules={m: e.source.display for m, e in program.by_module.items()},
            loaded=loaded,
            present={m for m in looked if m in program.by_module},
            absent={m for m in looked if m not in program.by_module},
            asked=asked,
            aliases={
                program.by_module[m].source.display: s.aliases
                for m, s in scans.items()
                if s.aliases
            },
            findings=findings,
            stats=stats,
            whole=whole,
            warnings=warnings,
            facts=facts,
        )

    def holds_for(self, program: Program) -> bool:
        """Whether ``program`` would lead the analysis to the same findings.

        Only the files that changed (added, removed, edited) are scanned again:
        each recorded answer is a union over files, so it holds when every
        changed file stays in (or out of) it. A changed file the analysis loaded
        is indexed again (or read from the fact cache): the findings still hold
        when its facts are the ones the analysis read (an edit of comments,
        blank lines at the end, formatting within a line), and, moved along, when
        they differ from those in their spans only (lines inserted or deleted
        that give no facts; see :mod:`pdlint.cache.line_moves`). Then :attr:`findings`
        become the moved ones.
        """
        files = {e.source.display: (e.module, e.digest) for e in program.entries}
        if files == self.files:
            return True
        unreadable = {e.source.display for e in program.entries if e.error is not None}
        if unreadable != {d for d, (_m, digest) in self.files.items() if not digest}:
            return False  # every unreadable file gets its PDL900
        changed = _changed(files, self.files)
        if self.whole and not changed <= self.loaded:
            return False  # a file added or removed, in a run that parsed every file
        now = {m: e.source.display for m, e in program.by_module.items()}
        entries = {e.source.display: e for e in program.entries}
        same_facts = set()
        moved: dict[str, dict[Span, Span]] = {}
        for display in sorted(changed & self.loaded):
            entry = entries.get(display)
            old = self.files.get(display)
            if (
                entry is None
                or not entry.readable
                or old is None
                or old[0] != entry.module
                or now.get(entry.module) != display
                or self.modules.get(entry.module) != display
                or display not in self.facts
            ):
                return False
            if program.facts_digest(entry) != self.facts[display]:
                pairs = program.line_moves(entry, old[1])
                if pairs is None:
                    return False
                moved[display] = pairs  # the same facts, some of them on other lines
            same_facts.add(display)  # the same module, from the same facts
        touched = {self.files[d][0] for d in changed - same_facts if d in self.files}
        touched |= {files[d][0] for d in changed - same_facts if d in files}
        for module in touched:
            if module in self.present or module in self.absent:
                return False  # the analysis looked this module up
            if now.get(module) != self.modules.get(module) and not (
                now.get(module) in changed or self.modules.get(module) in changed
            ):
                return False  # an unchanged file now stands for it (or no longer does)
        for display in changed:
            old_module = self.files[display][0] if display in self.files else None
            was = old_module is not None and self.modules.get(old_module) == display
            entry = entries.get(display)
            now_stands = entry is not None and program.by_module.get(entry.module) is entry
            scan = None
            data = entry.data if entry is not None and now_stands else None
            if now_stands:
                if data is None:
                    return False  # unreadable since the run began
                scan = scan_source(data, program.groups)
                if scan.aliases != self.aliases.get(display, ()):
                    return False
            elif self.aliases.get(display) and was:
                return False
            for query, answer in self.asked.items():
                if query[0] in ("aliases", "tops"):
                    continue
                before = was and old_module in answer
                after = (
                    scan is not None
                    and entry is not None
                    and selects(query, entry.module, scan, data)
                )
                if before != after:
                    return False
        tops = sorted({m.split(".")[0] for m in program.by_module})
        if ("tops",) in self.asked and list(self.asked[("tops",)]) != tops:
            return False
        findings: list[Finding] | None = self.findings
        for display, pairs in sorted(moved.items()):
            findings = move_findings(findings, display, pairs) if findings is not None else None
        if findings is None:
            return False
        self.findings = findings
        return True

    def refresh(self, program: Program) -> bool:
        """Take in ``program``'s files (after :meth:`holds_for` said yes), so that the
        next run compares with them; False when nothing changed."""
        files = {e.source.display: (e.module, e.digest) for e in program.entries}
        if files == self.files:
            return False
        changed = _changed(files, self.files)
        for entry in program.entries:
            display = entry.source.display
            if display not in changed:
                continue
            self.aliases.pop(display, None)
            if entry.readable and program.by_module.get(entry.module) is entry:
                aliases = scan_source(entry.data or b"", program.groups).aliases
                if aliases:
                    self.aliases[display] = aliases
        for display in changed - files.keys():
            self.aliases.pop(display, None)
        for entry in program.entries:  # the facts of a loaded file whose lines moved
            display = entry.source.display
            if display in changed and display in self.facts and entry.readable:
                self.facts[display] = program.facts_digest(entry)
        self.files = files
        self.modules = {m: e.source.display for m, e in program.by_module.items()}
        return True


def _changed(files: dict[str, tuple[str, str]], before: dict[str, tuple[str, str]]) -> set[str]:
    """The files added, removed or changed (in module or content) between two tables
    of display -> (module, digest)."""
    return {display for display, _ in files.items() ^ before.items()}


def run_key(
    salt: str,
    paths: Sequence[str],
    packs: object,
    entry_points: object,
    use_packs: bool,
    lazy: bool,
    checks: Sequence[str],
    check_syntax: bool = False,
) -> str:
    """The key of a whole run's record: the inputs, the settings read by the checks,
    how the run loads (``check_syntax``: a lazy run parses the other files too), and
    the checks that run (by name)."""
    inputs = [os.getcwd(), *(os.path.abspath(p) for p in paths if p != "-")]
    return make_key(
        "run",
        salt,
        CODE,
        repr(inputs),
        repr(packs),
        repr(entry_points),
        str(use_packs),
        str(lazy),
        str(check_syntax),
        ",".join(checks),
    )


def check_key(run: str, check: str) -> str:
    """The key of one check's own record within the run keyed ``run``."""
    return make_key(run, check)


def previous_run(store: FactStore, key: str, program: Program) -> RunRecord | None:
    """The last run's record, if its findings still hold for ``program``."""
    payload = store.get(key, kind="blob")
    if payload is None:
        return None
    try:
        record = pickle.loads(payload)
    except Exception:
        return None
    if isinstance(record, RunRecord) and record.holds_for(program):
        return record
    return None


def store_record(program: Program, key: str, record: RunRecord) -> None:
    """Keep ``record`` under ``key`` in the program's store."""
    program.store.put(key, pickle.dumps(record, 5), kind="blob")
