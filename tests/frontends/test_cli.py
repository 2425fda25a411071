"""The ``pdlint`` command line as a user sees it: files, exit codes, formats.

Most tests run ``python -m pdlint`` in a subprocess; the large parametrized
tables (selection, per-file ignores, noqa) use click's CliRunner (``invoke``),
which runs the same command in-process and keeps the suite fast.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pdlint_helpers import CONSUMER, GAP_PDL001, GAP_PDL101, invoke, run_pdlint

import pdlint
from pdlint.checks.catalogue import RULES

BROKEN_SOURCE = "import os\n\n\ndef handler(request, *, timeout=:\n    return request\n"
ALL_CODES = (
    "PDL001",
    "PDL101",
    "PDL102",
    "PDL103",
    "PDL104",
    "PDL105",
    "PDL106",
    "PDL107",
    "PDL108",
    "PDL201",
    "PDL301",
    "PDL900",
    "PDL901",
    "PDL902",
)


def parser_position(source: str) -> tuple[int, int]:
    """Line and (1-based) column where Python's own parser rejects ``source``."""
    with pytest.raises(SyntaxError) as info:
        compile(source, "<test>", "exec")
    assert info.value.lineno is not None and info.value.offset is not None
    return info.value.lineno, info.value.offset


def lines_with(stdout: str, code: str) -> list[str]:
    return [line for line in stdout.splitlines() if f": {code} " in line]


def add_noqa(consumer: Path, comment: str) -> None:
    """Append ``comment`` to the dereference line (20) of the relay_gap consumer."""
    lines = consumer.read_text().splitlines(keepends=True)
    assert "batch.draft_input.prepare(batch)" in lines[19]
    lines[19] = lines[19].rstrip("\n") + f"  {comment}\n"
    consumer.write_text("".join(lines))


# --- unreadable input: PDL900, and the run goes on -------------------------------


def test_syntax_error_gives_pdl900_at_parser_position_and_run_goes_on(relay_gap):
    pkg = relay_gap / "relay_gap_engine"
    # Sorts before every good file, so the run must go on past it.
    (pkg / "a_broken.py").write_text(BROKEN_SOURCE)
    (pkg / "zz_helpers.py").write_text("def helper():\n    return 1\n")
    line, col = parser_position(BROKEN_SOURCE)
    assert (line, col) != (1, 1)

    res = run_pdlint("check", ".", cwd=relay_gap)

    assert res.returncode == 1, res.stderr
    pdl900 = lines_with(res.stdout, "PDL900")
    where = f"relay_gap_engine/a_broken.py:{line}:{col}"
    assert pdl900 == [f"{where}: PDL900 syntax error: invalid syntax"]
    # The good files were analysed: the relay gap is still found.
    assert any(line.startswith(GAP_PDL101) for line in res.stdout.splitlines())
    assert any(line.startswith(GAP_PDL001) for line in res.stdout.splitlines())


def test_syntax_error_position_in_json(relay_gap):
    (relay_gap / "relay_gap_engine" / "a_broken.py").write_text(BROKEN_SOURCE)
    line, col = parser_position(BROKEN_SOURCE)

    res = run_pdlint("check", ".", "--output-format", "json", cwd=relay_gap)

    assert res.returncode == 1, res.stderr
    errors = [f for f in json.loads(res.stdout) if f["code"] == "PDL900"]
    assert len(errors) == 1
    assert errors[0]["filename"] == "relay_gap_engine/a_broken.py"
    assert errors[0]["location"] == {"row": line, "column": col}
    assert {f["code"] for f in json.loads(res.stdout)} == {"PDL001", "PDL101", "PDL900"}


def test_file_that_is_not_utf8_gives_cannot_decode(relay_gap):
    pkg = relay_gap / "relay_gap_engine"
    (pkg / "legacy.py").write_bytes(b'GREETING = "caf\xe9"\n')  # latin-1, no cookie

    res = run_pdlint("check", ".", cwd=relay_gap)

    assert res.returncode == 1, res.stderr
    pdl900 = lines_with(res.stdout, "PDL900")
    assert len(pdl900) == 1
    # At the undecodable byte: line 1, column 16 (after `GREETING = "caf`).
    assert pdl900[0].startswith(
        "relay_gap_engine/legacy.py:1:16: PDL900 cannot decode: byte 0xe9 is not valid utf-8"
    )
    assert any(line.startswith(GAP_PDL101) for line in res.stdout.splitlines())


def test_coding_cookie_is_honoured(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    cookie = b"# -*- coding: latin-1 -*-\n"
    (pkg / "legacy.py").write_bytes(cookie + b'GREETING = "caf\xe9"\n')

    res = run_pdlint("check", "pkg", cwd=tmp_path)

    assert (res.returncode, res.stdout) == (0, "")
    assert res.stderr.splitlines()[0] == "All checks passed!"

    # Proof that the text was decoded and parsed: a later syntax error is a
    # syntax error (at the parser's position), not a decoding failure.
    broken = 'GREETING = "caf\xe9"\n' + BROKEN_SOURCE
    (pkg / "legacy.py").write_bytes(cookie + broken.encode("latin-1"))
    line, col = parser_position("# -*- coding: latin-1 -*-\n" + broken)

    res = run_pdlint("check", "pkg", cwd=tmp_path)

    assert res.returncode == 1
    assert res.stdout == f"pkg/legacy.py:{line}:{col}: PDL900 syntax error: invalid syntax\n"


# --- paths -----------------------------------------------------------------------


def test_missing_path_exits_2_naming_it(tmp_path):
    res = run_pdlint("check", "no_such_dir", cwd=tmp_path)

    assert res.returncode == 2
    assert res.stdout == ""
    assert "no_such_dir" in res.stderr
    assert "No such file or directory" in res.stderr


def test_missing_path_next_to_a_good_one_still_exits_2(relay_gap):
    res = run_pdlint("check", ".", "missing.py", cwd=relay_gap)

    assert res.returncode == 2
    assert "missing.py" in res.stderr


def test_default_path_is_the_current_directory(relay_gap):
    res = run_pdlint("check", cwd=relay_gap)

    assert res.returncode == 1, res.stderr
    assert res.stdout == run_pdlint("check", ".", cwd=relay_gap).stdout
    assert any(line.startswith(GAP_PDL101) for line in res.stdout.splitlines())


# --- stdin -----------------------------------------------------------------------


def test_stdin_syntax_error_is_named_by_stdin_filename(tmp_path):
    line, col = parser_position(BROKEN_SOURCE)

    res = run_pdlint(
        "check",
        "-",
        "--stdin-filename",
        "pkg/mod.py",
        cwd=tmp_path,
        stdin=BROKEN_SOURCE,
    )

    assert res.returncode == 1, res.stderr
    assert res.stdout == f"pkg/mod.py:{line}:{col}: PDL900 syntax error: invalid syntax\n"


def test_stdin_good_source_exits_0(tmp_path):
    res = run_pdlint("check", "-", "--stdin-filename", "pkg/mod.py", cwd=tmp_path, stdin="x = 1\n")

    assert (res.returncode, res.stdout) == (0, "")


def test_stdin_noqa_applies(tmp_path):
    source = BROKEN_SOURCE.replace("timeout=:", "timeout=:  # noqa: PDL900")
    line, _ = parser_position(source)
    # The noqa must be on the reported line for this test to mean anything.
    assert "# noqa" in source.splitlines()[line - 1]

    res = run_pdlint("check", "-", "--stdin-filename", "pkg/mod.py", cwd=tmp_path, stdin=source)

    assert (res.returncode, res.stdout) == (0, ""), res.stderr


# --- policy through the CLI ------------------------------------------------------


def test_select_pdl9_hides_pdl101(relay_gap):
    (relay_gap / "relay_gap_engine" / "a_broken.py").write_text(BROKEN_SOURCE)

    res = run_pdlint("check", ".", "--select", "PDL9", cwd=relay_gap)

    assert res.returncode == 1
    assert lines_with(res.stdout, "PDL101") == []
    assert lines_with(res.stdout, "PDL001") == []
    assert len(lines_with(res.stdout, "PDL900")) == 1


def test_select_pdl9_with_nothing_to_report_exits_0(relay_gap):
    res = run_pdlint("check", ".", "--select", "PDL9", cwd=relay_gap)

    assert (res.returncode, res.stdout) == (0, ""), res.stderr


@pytest.mark.parametrize(
    ("flags", "shown"),
    [
        ((), {"PDL001", "PDL101"}),
        (("--ignore", "PDL1"), {"PDL001"}),
        (("--ignore", "PDL0,PDL1"), set()),
        (("--ignore", "PDL0", "--ignore", "PDL1"), set()),
        (("--select", "PDL1"), {"PDL101"}),
        (("--select", "PDL1", "--ignore", "PDL101"), set()),
        (("--select", "PDL101", "--ignore", "PDL1"), {"PDL101"}),
        (("--select", "PDL9", "--extend-select", "PDL101"), {"PDL101"}),
        (("--ignore", "PDL", "--extend-select", "PDL1"), {"PDL101"}),
        # flake8: an explicit ignore beats the implicit default selection ...
        (("--ignore", "PD"), set()),
        # ... but not a longer explicit select.
        (("--select", "PDL", "--ignore", "PD"), {"PDL001", "PDL101"}),
        (("--select", "ALL", "--ignore", "PDL001"), {"PDL101"}),
        (("--select", "pdl1"), {"PDL101"}),
    ],
    ids=lambda v: " ".join(v) or "defaults" if isinstance(v, tuple) else None,
)
def test_select_ignore_on_the_command_line(relay_gap, flags, shown):
    res = invoke("check", ".", *flags, cwd=relay_gap)

    codes = {line.split(": ", 1)[1].split()[0] for line in res.stdout.splitlines()}
    assert codes == shown
    assert res.returncode == (1 if shown - {"PDL001"} else 0), res.stderr  # a note never fails


@pytest.mark.parametrize(
    "flags",
    [
        ("--select", "PDL777"),
        ("--ignore", "XYZ1"),
        ("--extend-select", "PDL4"),
        ("--per-file-ignores", "*.py:PDL555"),
    ],
)
def test_unknown_code_on_the_command_line_exits_2(relay_gap, flags):
    res = invoke("check", ".", *flags, cwd=relay_gap)

    assert res.returncode == 2
    assert res.stdout == ""
    bad = flags[1].split(":")[-1]
    assert f"'{bad}'" in res.stderr
    assert flags[0] in res.stderr


@pytest.mark.parametrize(
    "spec",
    [
        "relay_gap_engine/spec_utils.py:PDL101",
        "spec_utils.py:PDL1",
        "*/spec_utils.py:PDL10",
        "relay_gap_engine/*.py:PDL101,PDL102",
    ],
)
def test_per_file_ignores(relay_gap, spec):
    res = invoke("check", ".", "--per-file-ignores", spec, cwd=relay_gap)

    assert res.returncode == 0  # only the PDL001 note is left
    assert lines_with(res.stdout, "PDL101") == []
    assert [line.startswith(GAP_PDL001) for line in res.stdout.splitlines()] == [True]


@pytest.mark.parametrize(
    "spec",
    [
        "relay_gap_engine/spec_info.py:PDL101",  # another file
        "relay_gap_engine/spec_utils.py:PDL102",  # another code
        "relay_gap_engine/spec_utils.py:PDL0",
    ],
)
def test_per_file_ignores_that_do_not_apply(relay_gap, spec):
    res = invoke("check", ".", "--per-file-ignores", spec, cwd=relay_gap)

    assert len(lines_with(res.stdout, "PDL101")) == 1


def test_per_file_ignores_several_pairs(relay_gap):
    res = run_pdlint(
        "check",
        ".",
        "--per-file-ignores",
        "*/spec_utils.py:PDL101;*/spec_info.py:PDL001",
        cwd=relay_gap,
    )

    assert (res.returncode, res.stdout) == (0, ""), res.stderr


@pytest.mark.parametrize(
    ("comment", "suppressed"),
    [
        ("# noqa", True),
        ("# NOQA", True),
        ("# noqa: PDL101", True),
        ("# noqa:PDL1", True),
        ("# noqa: PDL102,PDL101", True),
        ("# noqa: PDL102", False),
        ("# noqa: PDL1011", False),
        ("# noqa: pdl101", False),  # flake8: codes are case-sensitive
        ("#noqa", False),  # flake8 wants a space after the hash
    ],
)
def test_noqa_end_to_end(relay_gap, comment, suppressed):
    add_noqa(relay_gap / CONSUMER, comment)

    res = invoke("check", ".", cwd=relay_gap)

    assert len(lines_with(res.stdout, "PDL101")) == (0 if suppressed else 1)
    assert len(lines_with(res.stdout, "PDL001")) == 1  # other lines unaffected


def test_noqa_on_another_line_does_not_suppress(relay_gap):
    consumer = relay_gap / CONSUMER
    lines = consumer.read_text().splitlines(keepends=True)
    lines[18] = lines[18].rstrip("\n") + "  # noqa: PDL101\n"  # the `if` above
    consumer.write_text("".join(lines))

    res = run_pdlint("check", ".", cwd=relay_gap)

    assert len(lines_with(res.stdout, "PDL101")) == 1


def test_exit_zero_still_prints_findings(relay_gap):
    res = run_pdlint("check", ".", "--exit-zero", cwd=relay_gap)

    assert res.returncode == 0
    assert len(lines_with(res.stdout, "PDL101")) == 1


def test_statistics_counts_per_code(relay_gap):
    pkg = relay_gap / "relay_gap_engine"
    (pkg / "a_broken.py").write_text(BROKEN_SOURCE)
    (pkg / "b_broken.py").write_text(BROKEN_SOURCE)

    res = run_pdlint("check", ".", "--statistics", cwd=relay_gap)

    assert res.returncode == 1
    # The table alone, as ruff prints it: no finding above it.
    assert res.stdout == (
        "    2\tPDL900\tparse-error\n"
        "    1\tPDL001\tdispatch-gap\n"
        "    1\tPDL101\trelay-state-missing\n"
    )
    assert res.stderr == "Found 4 findings (3 errors).\n"


def test_statistics_with_json_is_json_and_refused_with_sarif_and_github(relay_gap):
    res = run_pdlint("check", ".", "--statistics", "--output-format", "json", cwd=relay_gap)

    assert res.returncode == 1
    assert json.loads(res.stdout) == [
        {"code": "PDL001", "name": "dispatch-gap", "count": 1},
        {"code": "PDL101", "name": "relay-state-missing", "count": 1},
    ]
    assert res.stderr == "Found 2 findings (1 error).\n"
    for fmt in ("sarif", "github"):
        res = run_pdlint("check", ".", "--statistics", "--output-format", fmt, cwd=relay_gap)
        assert (res.returncode, res.stdout) == (2, "")
        assert res.stderr == (
            "pdlint: error: --statistics prints a table or JSON: "
            f"use it with concise, full or json, not {fmt}\n"
        )


# --- output formats --------------------------------------------------------------


def test_concise_format_lines_and_one_based_columns(relay_gap):
    res = run_pdlint("check", ".", cwd=relay_gap)

    assert res.returncode == 1
    lines = res.stdout.splitlines()
    assert len(lines) == 2
    # ruff's concise line: location, code and a one-line summary (the whole
    # message is in full, JSON and SARIF)
    assert lines == [
        GAP_PDL001 + "`build_disagg_draft_input` builds no `draft_input` for DFLASH, NONE",
        GAP_PDL101 + "DFLASH reaches `batch.draft_input`, never built on the decode relay",
    ]
    # Column 9 is where `batch.draft_input` starts on line 20, counted from 1.
    source_line = (relay_gap / CONSUMER).read_text().splitlines()[19]
    assert source_line.index("batch.draft_input") + 1 == 9


def test_concise_is_default_and_explicit_concise_matches(relay_gap):
    default = run_pdlint("check", ".", cwd=relay_gap)
    explicit = run_pdlint("check", ".", "--output-format", "concise", cwd=relay_gap)

    assert default.stdout == explicit.stdout != ""


def test_paths_are_relative_to_the_current_directory(relay_gap, tmp_path):
    from_parent = run_pdlint("check", "relay_gap", cwd=tmp_path)
    absolute_arg = run_pdlint("check", relay_gap.resolve(), cwd=tmp_path)
    inside = run_pdlint("check", "relay_gap_engine", cwd=relay_gap)

    assert lines_with(from_parent.stdout, "PDL101")[0].startswith("relay_gap/" + GAP_PDL101)
    assert absolute_arg.stdout == from_parent.stdout
    assert lines_with(inside.stdout, "PDL101")[0].startswith(GAP_PDL101)


def test_paths_outside_the_current_directory_are_absolute(relay_gap, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    res = run_pdlint("check", relay_gap, cwd=elsewhere)

    expected = (relay_gap.resolve() / CONSUMER).as_posix() + ":20:9: PDL101 "
    assert lines_with(res.stdout, "PDL101")[0].startswith(expected)


def test_full_format_shows_source_caret_and_call_path(relay_gap):
    res = run_pdlint("check", ".", "--output-format", "full", cwd=relay_gap)

    assert res.returncode == 1
    out = res.stdout.splitlines()
    head = next(i for i, line in enumerate(out) if line.startswith(GAP_PDL101))
    source_line, caret_line = out[head + 1], out[head + 2]
    assert source_line == "   20 |         batch.draft_input.prepare(batch)"
    # The caret sits under the dereference `batch.draft_input`, and spans it.
    start = source_line.index("batch.draft_input")
    assert caret_line.index("^") == start
    assert caret_line.strip(" |") == "^" * len("batch.draft_input")
    block = out[head : out.index("", head)]
    notes = [line for line in block if line.startswith("    = note: ")]
    assert any("decode entry point" in note for note in notes)
    assert "    = call path:" in block
    steps = block[block.index("    = call path:") + 1 :]
    assert steps[0].startswith("        relay_gap_engine/scheduler.py:")
    assert "entry point" in steps[0]
    assert steps[-1].startswith("        relay_gap_engine/spec_utils.py:20:9: ")


def test_json_format_schema(relay_gap):
    res = run_pdlint("check", ".", "--output-format", "json", cwd=relay_gap)

    assert res.returncode == 1
    findings = json.loads(res.stdout)
    assert [f["code"] for f in findings] == ["PDL001", "PDL101"]
    keys = {
        "code",
        "name",
        "message",
        "filename",
        "location",
        "end_location",
        "related",
        "path",
    }
    for f in findings:
        assert keys <= f.keys()
        assert f["name"] == RULES[f["code"]].name
        assert set(f["location"]) == {"row", "column"}
        assert set(f["end_location"]) == {"row", "column"}
        for rel in f["related"]:
            assert {"filename", "location", "end_location", "message"} <= rel.keys()
        for step in f["path"]:
            assert {"filename", "location", "message"} <= step.keys()
    gap = findings[1]
    assert gap["filename"] == CONSUMER.as_posix()
    assert gap["location"] == {"row": 20, "column": 9}
    assert gap["end_location"] == {"row": 20, "column": 9 + len("batch.draft_input")}
    assert gap["related"] and gap["path"]
    assert gap["path"][0]["filename"] == "relay_gap_engine/scheduler.py"
    assert gap["path"][-1]["location"] == gap["location"]


def test_json_with_no_findings_is_an_empty_list(tmp_path):
    (tmp_path / "ok.py").write_text("x = 1\n")

    res = run_pdlint("check", ".", "--output-format", "json", cwd=tmp_path)

    assert res.returncode == 0
    assert json.loads(res.stdout) == []


@pytest.mark.parametrize("fmt", ["concise", "full", "json"])
def test_output_is_sorted_and_byte_identical_across_runs(relay_gap, fmt):
    pkg = relay_gap / "relay_gap_engine"
    (pkg / "zz_broken.py").write_text(BROKEN_SOURCE)
    (pkg / "a_legacy.py").write_bytes(b"x = '\xff'\n")
    (relay_gap / "top_broken.py").write_text("def (\n")

    runs = [
        subprocess.run(
            [sys.executable, "-m", "pdlint", "check", ".", "--output-format", fmt],
            cwd=relay_gap,
            capture_output=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            timeout=120,
        )
        for seed in ("1", "2")
    ]

    assert runs[0].returncode == runs[1].returncode == 1
    assert runs[0].stdout == runs[1].stdout != b""
    findings = json.loads(run_pdlint("check", ".", "--output-format", "json", cwd=relay_gap).stdout)
    keys = [
        (f["filename"], f["location"]["row"], f["location"]["column"], f["code"]) for f in findings
    ]
    assert len(keys) == 5
    assert keys == sorted(keys)


# --- discovery -------------------------------------------------------------------


def make_tree(root: Path) -> None:
    """A project whose every file has a syntax error, in skipped and kept places."""
    for rel in [
        "pkg/mod.py",
        "pkg/sub/deep.py",
        ".git/hooks/hook.py",
        "venv/lib/site.py",
        "myenv/lib/site.py",  # a virtualenv by its pyvenv.cfg, not by its name
        "pkg/__pycache__/cached.py",
        "build/lib/pkg/mod.py",
        "dist/pkg/mod.py",
        "notes.txt",
    ]:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("def (\n")
    (root / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "myenv" / "pyvenv.cfg").write_text("home = /usr/bin\n")


def reported_files(stdout: str) -> list[str]:
    return [line.split(":", 1)[0] for line in stdout.splitlines()]


def test_default_skips(tmp_path):
    make_tree(tmp_path)

    res = run_pdlint("check", ".", cwd=tmp_path)

    assert res.returncode == 1
    assert reported_files(res.stdout) == ["pkg/mod.py", "pkg/sub/deep.py"]


def test_extend_exclude_adds_to_the_defaults(tmp_path):
    make_tree(tmp_path)

    res = run_pdlint("check", ".", "--extend-exclude", "sub", cwd=tmp_path)

    assert reported_files(res.stdout) == ["pkg/mod.py"]


def test_extend_exclude_glob_on_files(tmp_path):
    make_tree(tmp_path)

    res = run_pdlint("check", ".", "--extend-exclude", "pkg/m*.py", cwd=tmp_path)

    assert reported_files(res.stdout) == ["pkg/sub/deep.py"]


def test_exclude_replaces_the_defaults(tmp_path):
    make_tree(tmp_path)

    res = run_pdlint("check", ".", "--exclude", "sub", cwd=tmp_path)

    files = reported_files(res.stdout)
    assert "pkg/sub/deep.py" not in files
    assert {"build/lib/pkg/mod.py", "dist/pkg/mod.py", "pkg/mod.py"} <= set(files)
    assert "pkg/__pycache__/cached.py" in files


def test_everything_excluded_exits_0(tmp_path):
    make_tree(tmp_path)

    res = run_pdlint("check", ".", "--extend-exclude", "pkg", cwd=tmp_path)

    assert (res.returncode, res.stdout) == (0, "")


def test_a_file_named_explicitly_is_analysed_even_in_a_skipped_folder(tmp_path):
    make_tree(tmp_path)

    res = run_pdlint("check", "build/lib/pkg/mod.py", cwd=tmp_path)

    assert reported_files(res.stdout) == ["build/lib/pkg/mod.py"]


# --- rules, rule, version --------------------------------------------------------


def test_rules_lists_every_code(tmp_path):
    res = run_pdlint("rules", cwd=tmp_path)

    assert res.returncode == 0
    rows = res.stdout.splitlines()
    assert [row.split()[0] for row in rows] == list(ALL_CODES)
    for row, code in zip(rows, ALL_CODES, strict=True):
        assert RULES[code].name in row
        assert RULES[code].summary in row


def test_rule_explains_with_an_example(tmp_path):
    res = run_pdlint("rule", "PDL101", cwd=tmp_path)

    assert res.returncode == 0
    assert res.stdout.startswith("# relay-state-missing (PDL101)\n")
    assert RULES["PDL101"].explanation.splitlines()[0] in res.stdout
    assert "Example:" in res.stdout
    example = res.stdout.split("Example:\n", 1)[1]
    assert "    batch.draft_input.prepare(batch)" in example


@pytest.mark.parametrize(
    ("code", "bug", "fix"),
    [
        ("PDL104", "first = payload.tree_scores[0]", "# fix:"),
        ("PDL105", "assert isinstance(state, CachedTreeState)", "# fix:"),
        ("PDL106", "def build_lookup_draft(batch):", "# fix:"),
    ],
)
def test_rule_explains_the_relay_codes_with_an_example_and_its_fix(tmp_path, code, bug, fix):
    res = run_pdlint("rule", code, cwd=tmp_path)

    assert res.returncode == 0
    assert res.stdout.startswith(f"# {RULES[code].name} ({code})\n")
    assert "Fix:" in res.stdout.split("Example:", 1)[0]
    example = res.stdout.split("Example:\n", 1)[1]
    assert bug in example
    assert fix in example


@pytest.mark.parametrize("code", ["PDL999", "E501", "relay"])
def test_rule_with_an_unknown_code_exits_2(tmp_path, code):
    res = run_pdlint("rule", code, cwd=tmp_path)

    assert res.returncode == 2
    assert res.stdout == ""
    assert code in res.stderr


def test_version_with_python_m(tmp_path):
    res = run_pdlint("--version", cwd=tmp_path)

    assert res.returncode == 0
    assert res.stdout == f"pdlint, version {pdlint.__version__}\n"


def test_version_with_the_console_script(tmp_path):
    script = Path(sys.executable).parent / "pdlint"
    exe = str(script) if script.exists() else shutil.which("pdlint")
    assert exe, "the pdlint console script is not installed"

    res = subprocess.run(
        [exe, "--version"], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )

    assert res.returncode == 0
    assert res.stdout == f"pdlint, version {pdlint.__version__}\n"


def test_unknown_option_is_a_usage_error(tmp_path):
    res = run_pdlint("check", ".", "--no-such-flag", cwd=tmp_path)

    assert res.returncode == 2
    assert "--no-such-flag" in res.stderr
