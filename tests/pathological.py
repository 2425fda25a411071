"""Generators of pathological but valid packages, written at test time.

Each generator writes a copy of ``fixtures/relay/relay_gap`` (whose findings are known:
one PDL001 and one PDL101, see GAP_PDL001 and GAP_PDL101) and adds or rewrites
files to push one dimension to an extreme. Nothing large is committed: the tests
and ``scripts/fuzz.py`` build these in temporary folders.
"""

from __future__ import annotations

from pathlib import Path

from pdlint_helpers import copy_relay_gap

PKG = "relay_gap_engine"
DEPTH = 5000

# Seconds; the README's "Guarantees" table states the same numbers.
BOUNDS = {
    "nested": 30,
    "huge_file": 30,
    "huge_enum": 60,
    "predicate_cycles": 30,
    "call_graph_cycles": 30,
    "many_mixins": 30,
}


def nested_expressions(root: Path, depth: int = DEPTH) -> dict[str, str]:
    """relay_gap plus one module per expression shape nested ``depth`` levels.

    Returns file name -> shape. CPython rejects most of these shapes (its parser
    has nesting limits); pdlint must say so in a PDL900 finding, not crash.
    """
    pkg = copy_relay_gap(root) / PKG
    shapes = {
        "parens": "x = " + "(" * depth + "1" + ")" * depth,
        "lists": "x = " + "[" * depth + "]" * depth,
        "calls": "x = " + "f(" * depth + ")" * depth,
        "unary": "x = " + "-" * depth + "1",
        "nots": "x = " + "not " * depth + "a",
        "sums": "x = " + "a + " * depth + "b",
        "powers": "x = " + "a ** " * depth + "b",
        "ternaries": "x = " + "a if b else " * depth + "c",
        "lambdas": "x = " + "lambda: " * depth + "c",
        "attributes": "x = a" + ".b" * depth,
        "subscripts": "x = a" + "[0]" * depth,
        "call_chain": "x = a" + "()" * depth,
        "and_parens": "x = " + "a and (" * depth + "c" + ")" * depth,
        "blocks": "".join(" " * i + "if a:\n" for i in range(depth)) + " " * depth + "pass",
        # Below CPython's limits: parsed, then indexed by pdlint's own walkers.
        "deep_guard": "def f(self):\n    if "
        + "not " * 900
        + "self.a:\n        return self.b"
        + ".c" * 900,
        "deep_call_in_relay": "def g(batch):\n    return batch.draft_input"
        + ".x" * 1400
        + "\n\ndef h(batch):\n    return "
        + "batch.f(" * 90
        + ")" * 90,
    }
    # A syntax error first, then a nesting that only a second parser would
    # reach (pdlint's newer-Python hint must not recurse into it).
    shapes["error_then_parens"] = "type X = int\n" + shapes["parens"]
    shapes["error_then_attributes"] = "type X = int\n" + shapes["attributes"]
    names = {}
    for shape, text in shapes.items():
        name = f"nested_{shape}.py"
        (pkg / name).write_text(text + "\n")
        names[name] = shape
    return names


def huge_file(root: Path, size: int = 20_000_000) -> Path:
    """relay_gap plus a generated ``size``-byte module: a data blob and code.

    Shaped like a generated protocol or weights module: a large bytes literal
    split over many lines, then ordinary functions.
    """
    pkg = copy_relay_gap(root) / PKG
    path = pkg / "generated_blob.py"
    line = b'    b"' + b"\\x00\\x01" * 12 + b'"\n'
    code = b"".join(b"def helper_%d(x):\n    return x + %d\n\n" % (i, i) for i in range(2000))
    header = b'"""Generated: serialized descriptor."""\n\nDESCRIPTOR = (\n'
    body_size = size - len(header) - len(code) - 3
    with path.open("wb") as out:
        out.write(header)
        out.write(line * (body_size // len(line)))
        out.write(b")\n\n")
        out.write(code)
        out.write(b" " * (size - out.tell() - 1) + b"\n")
    return path


def huge_enum(root: Path, extra: int = 9996) -> None:
    """relay_gap whose variant enum has 4 + ``extra`` members (10,000 by default).

    ``is_dflash`` is true for every member but EAGLE, EAGLE3 and NONE, so the
    unguarded dereference is reached by DFLASH and every extra member.
    """
    pkg = copy_relay_gap(root) / PKG
    spec = pkg / "spec_info.py"
    text = spec.read_text()
    extra_members = "".join(f"    X{i} = enum.auto()\n" for i in range(extra))
    text = text.replace("    NONE = enum.auto()\n", "    NONE = enum.auto()\n" + extra_members)
    text = text.replace(
        "return self == DraftAlgorithm.DFLASH",
        "return self not in (DraftAlgorithm.EAGLE, DraftAlgorithm.EAGLE3, DraftAlgorithm.NONE)",
    )
    spec.write_text(text)


def predicate_cycles(root: Path, count: int = 600) -> None:
    """relay_gap plus ``count`` predicates that call each other in cycles.

    Each predicate calls four others (modulo ``count``) under a guard, so every
    one is on a cycle and evaluating one by following every path takes time
    exponential in the depth. A consumer guarded by one of them is unknown (no
    finding); the original gap is still found.
    """
    pkg = copy_relay_gap(root) / PKG
    spec = pkg / "spec_info.py"

    def p(i: int) -> str:
        return f"self.is_p{i % count}()"

    methods = "".join(
        f"    def is_p{i}(self) -> bool:\n"
        f"        if {p(i + 1)} and {p(i + 5)}:\n"
        f"            return {p(i + 2)} or {p(i + 7)}\n"
        f"        return {p(i + 3)} and not {p(i + 4)}\n\n"
        for i in range(count)
    )
    text = spec.read_text().replace(
        "    def is_none(self) -> bool:", methods + "    def is_none(self) -> bool:"
    )
    spec.write_text(text)
    (pkg / "cyclic_consumer.py").write_text(
        '"""A consumer guarded by a predicate on a cycle: unknown, never reported."""\n\n'
        "def prepare_cyclic(batch):\n"
        "    if batch.algo.is_p0():\n"
        "        batch.draft_input.prepare(batch)\n"
    )
    _call_from_prepare_decode(pkg, "from relay_gap_engine.cyclic_consumer import prepare_cyclic")


def call_graph_cycles(root: Path, count: int = 3000) -> None:
    """relay_gap plus ``count`` mutually recursive functions on the decode path.

    Each ``step_i`` calls three others (a ring and two long chords), so the
    graph is one big strongly connected component; the decode step enters it
    at ``step_0`` and only the last step calls the real consumer.
    """
    pkg = copy_relay_gap(root) / PKG
    lines = [
        '"""Mutually recursive steps reached from the decode loop."""',
        "",
        "from relay_gap_engine.spec_utils import spec_prepare_decode",
        "",
    ]
    for i in range(count):
        a, b, c = (i + 1) % count, (i * 7 + 3) % count, (i * 13 + 5) % count
        lines += [
            "",
            f"def step_{i}(batch):",
            f"    step_{a}(batch)",
            "    if batch.reqs:",
            f"        step_{b}(batch)",
            "    else:",
            f"        step_{c}(batch)",
        ]
        if i == count - 1:
            lines.append("    spec_prepare_decode(batch)")
    (pkg / "steps.py").write_text("\n".join(lines) + "\n")
    _call_from_prepare_decode(
        pkg, "from relay_gap_engine.steps import step_0 as prepare_cyclic", instead=True
    )


def many_mixins(root: Path, count: int = 100) -> None:
    """relay_gap whose scheduler inherits ``count`` mixins in a diamond lattice.

    ``Mixin_i`` inherits the two mixins before it; each forwards the decode step
    to the next through ``self``, and the last one calls the real update.
    """
    pkg = copy_relay_gap(root) / PKG
    lines = ['"""A scheduler assembled from many mixins."""', ""]
    for i in range(count):
        bases = ", ".join(f"Mixin{j}" for j in (i - 1, i - 2) if j >= 0) or "object"
        nxt = f"self.step_{i + 1}(batch)" if i + 1 < count else "self.update_running_batch(batch)"
        lines += [
            "",
            f"class Mixin{i}({bases}):",
            f"    def step_{i}(self, batch):",
            f"        {nxt}",
            "",
        ]
    (pkg / "mixins.py").write_text("\n".join(lines) + "\n")
    sched = pkg / "scheduler.py"
    text = sched.read_text()
    text = text.replace(
        "from relay_gap_engine.spec_info import DraftAlgorithm\n",
        "from relay_gap_engine.spec_info import DraftAlgorithm\n"
        "from relay_gap_engine.mixins import "
        + ", ".join(f"Mixin{i}" for i in range(count))
        + "\n",
    )
    text = text.replace(
        "            self.update_running_batch(batch)\n",
        "            self.step_0(batch)\n",
    )
    bases = ", ".join(f"Mixin{i}" for i in reversed(range(count)))
    text = text.replace(
        "class Scheduler(DecodeSchedulerMixin):",
        f"class Scheduler(DecodeSchedulerMixin, {bases}):",
    )
    sched.write_text(text)


def _call_from_prepare_decode(pkg: Path, import_line: str, instead: bool = False) -> None:
    """Make ``ScheduleBatch.prepare_decode`` call ``prepare_cyclic(self)`` too
    (``instead`` of ``spec_prepare_decode(self)``)."""
    batch = pkg / "batch.py"
    text = batch.read_text()
    text = text.replace(
        "from relay_gap_engine.spec_utils import spec_prepare_decode\n",
        "from relay_gap_engine.spec_utils import spec_prepare_decode\n" + import_line + "\n",
    )
    text = text.replace(
        "            spec_prepare_decode(self)\n",
        ("" if instead else "            spec_prepare_decode(self)\n")
        + "            prepare_cyclic(self)\n",
    )
    batch.write_text(text)


def text_scan_shapes(scale: float = 1) -> dict[str, str]:
    """Files each of which made a text scan quadratic (issue 35, point 4), by name;
    ``scale`` multiplies their repetitions. Each is under 1 MB and holds what the
    relay check's text query asks of a file (``raise`` and ``'decode'``), so that
    every scan reads it."""

    def times(n: int) -> int:
        return int(n * scale)

    return {
        "continuations": "d = 1\n"
        + "match, \\\n" * times(20_000)
        + "x = 1\nm = 'decode'\nraise E\n",
        "brackets": "m = 'decode'\n"
        + "if (\n" * times(20_000)
        + ")\n" * times(20_000)
        + "m = 'decode'\nraise E\n",
        "unclosed": "m = 'decode'\n" + "if (\n" * times(20_000) + "'decode'\nraise E\n",
        "imports": "m = 'decode'\nraise E\n" + "ximport (\n" * times(90_000),
        "star_word": "raise E\nm = 'decode'\n" + "disagg" * times(100_000) + "\n",
        "headers": "m = 'decode'\nraise E\n" + "class A([\n" * times(50_000),
        "asserts": "x = 1" + "; assert (" * times(50_000) + "\nm = 'decode'\nraise E\n",
    }
