"""Fuzzing: no generated program makes pdlint raise; each is analysed or gets PDL900.

Programs come from hypothesmith (from Python's grammar, and from libcst node
trees) and from byte-level mutations of the relay_gap fixture. Each is analysed
in process through :func:`pdlint.api.analyze`, the function every front end
calls, as a module of a copy of fixtures/relay/relay_gap. The oracle is CPython's own
parser: the generated file has a PDL900 finding exactly when ``ast.parse``
rejects its bytes, and the fixture's own findings stay what they are.

``PDLINT_FUZZ_EXAMPLES`` sets the examples of the grammar and mutation tests
(300 each by default, as in CI); the libcst-node generator is about ten times
slower per example (0.3 to 0.8 s), so it runs a fifteenth as many. ``scripts/fuzz.py`` runs
the 5,000-example profile.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import warnings
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from pdlint_helpers import copy_relay_gap

from pdlint.api import analyze
from pdlint.findings import Finding
from pdlint.settings.config import Settings

EXAMPLES = int(os.environ.get("PDLINT_FUZZ_EXAMPLES", "300"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    # Without the "target" phase: hill-climbing on hypothesmith's size targets
    # took three quarters of the time, for no new kind of program.
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink],
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)
FUZZ_SLOW = settings(FUZZ, max_examples=max(EXAMPLES // 15, 1))
# hypothesmith compiles what it generates; CPython warns about calls on literals.
pytestmark = pytest.mark.filterwarnings("ignore::SyntaxWarning")
GENERATED = "relay_gap_engine/generated.py"
MUTATED = "relay_gap_engine/spec_utils.py"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_relay_gap(tmp_path_factory.mktemp("fuzz") / "relay_gap")


def rejected_by_python(data: bytes) -> bool:
    """True if CPython refuses ``data`` as the text of a source file.

    ``compile`` of bytes skips comments without decoding them, but running the
    file (``python file.py``) refuses a byte that its PEP 263 encoding cannot
    decode anywhere; the standard library's ``decode_source`` applies that rule.
    """
    try:
        importlib.util.decode_source(data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError, LookupError):
        return True
    return False


def findings_in(findings: list[Finding], project: Path, relative: str) -> list[Finding]:
    path = (project / relative).as_posix()
    return [f for f in findings if Path(f.location.path).resolve().as_posix() == path]


def fixture_summary(findings: list[Finding], project: Path) -> list[str]:
    """``CODE path:line member`` of every finding outside the generated file."""
    out = []
    for f in findings:
        relative = Path(f.location.path).resolve().relative_to(project.resolve()).as_posix()
        if relative != GENERATED:
            out.append(f"{f.code} {relative}:{f.location.line} {f.member}")
    return sorted(out)


def analyse_generated(project: Path, data: bytes) -> list[Finding]:
    """Analyse the fixture with ``data`` as one more module (read from stdin)."""
    result = analyze(
        [str(project), "-"],
        Settings(root=str(project)),
        stdin=data,
        stdin_filename=str(project / GENERATED),
    )
    return result.findings


def check_generated(project: Path, data: bytes) -> None:
    findings = analyse_generated(project, data)
    errors = [f for f in findings_in(findings, project, GENERATED) if f.code == "PDL900"]
    if rejected_by_python(data):
        assert len(errors) == 1, data
        assert errors[0].location.line >= 1 and errors[0].location.column >= 1
    else:
        assert errors == [], (errors, data)
    assert fixture_summary(findings, project) == BASELINE


BASELINE = [
    "PDL001 relay_gap_engine/spec_info.py:48 DFLASH,NONE",
    "PDL101 relay_gap_engine/spec_utils.py:20 DFLASH",
]


def test_baseline_is_the_fixtures_expected_findings(project: Path):
    expected = (project / "expected.txt").read_text().split("\n")
    assert fixture_summary(analyse_generated(project, b""), project) == BASELINE
    assert BASELINE == sorted(line for line in expected if line)


@FUZZ
@given(source=hypothesmith.from_grammar())
def test_programs_from_the_grammar(project: Path, source: str):
    check_generated(project, source.encode("utf-8", "surrogatepass"))


@FUZZ_SLOW
@given(source=hypothesmith.from_node())
def test_programs_from_libcst_nodes(project: Path, source: str):
    check_generated(project, source.encode("utf-8", "surrogatepass"))


def _mutate(data: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    for position, length, insert in edits:
        at = position % (len(data) + 1)
        data = data[:at] + insert + data[at + length :]
    return data


EDIT = st.tuples(
    st.integers(min_value=0, max_value=10_000),
    st.integers(min_value=0, max_value=8),
    st.one_of(
        st.binary(max_size=6),
        st.sampled_from(
            [b"\x00", b"\xef\xbb\xbf", b"\r", b"\r\n", b"\x0c", b"(", b"[", b":", b"    ", b"\\"]
        ),
        st.sampled_from(["é", "\u2028", "type X = int\n", "# coding: latin-1\n"]).map(
            lambda s: s.encode("utf-8")
        ),
    ),
)


@FUZZ
@given(edits=st.lists(EDIT, min_size=1, max_size=6))
# Found by the 5,000-example profile: lone \r line ends made the newer-Python
# hint's tokenizer count lines differently from the parser (IndexError).
# A byte that is not UTF-8 in a comment: compile() of bytes accepts it, Python
# running the file does not.
@example(edits=[(0, 0, b"#\x80")])
@example(
    edits=[
        (3, 7, b"# coding: latin-1\n"),
        (3, 8, b"# coding: latin-1\n"),
        (5409, 8, b"\r"),
        (273, 8, b"\n"),
    ]
)
def test_byte_mutations_of_a_fixture_file(project: Path, edits: list[tuple[int, int, bytes]]):
    original = (project / MUTATED).read_bytes()
    data = _mutate(original, edits)
    result = analyze(
        [str(project), "-"],
        Settings(root=str(project)),
        stdin=data,
        stdin_filename=str(project / GENERATED),
    )
    errors = [f for f in findings_in(result.findings, project, GENERATED) if f.code == "PDL900"]
    assert (len(errors) == 1) == rejected_by_python(data), (errors, data)
