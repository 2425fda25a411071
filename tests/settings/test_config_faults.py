"""Configuration and rule-pack faults: exit 2 naming file, line and key, or a warning.

Complements test_config.py (which covers unknown keys and codes in
``[tool.pdlint]``): every kind of value, malformed TOML at its line, rule packs
that are malformed or name what does not exist, and the environment. Names
that match nothing (entry points, startup validators) are warnings, as the
README says; everything else is an error. The command runs in process (click's
CliRunner) to keep this large table fast; test_config.py runs it as a process.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pdlint_helpers import GAP_PDL001, GAP_PDL101, copy_relay_gap, invoke


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return copy_relay_gap(tmp_path / "proj")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def assert_fails(res, where: str, *needles: str) -> None:
    """Exit 2, nothing on stdout, one error line that starts at ``where``."""
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert res.stdout == ""
    assert res.stderr.count("\n") == 1, res.stderr
    assert res.stderr.startswith(f"pdlint: error: {where}"), res.stderr
    for needle in needles:
        assert needle in res.stderr, res.stderr
    assert "Traceback" not in res.stderr


def assert_gap_found(stdout: str) -> None:
    lines = stdout.splitlines()
    assert any(line.startswith(GAP_PDL001) for line in lines)
    assert any(line.startswith(GAP_PDL101) for line in lines)


# --- [tool.pdlint] ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('[tool.pdlint]\nignore = ["PDL1"]\nselect = PDL1\n', 3),
        ('[tool.pdlint]\nignore = ["PDL1"]\nignore = ["PDL0"]\n', 3),
        ('[tool.pdlint]\n\nignore = ["PDL1"\n', 3),
    ],
    ids=["bare-word", "duplicate-key", "unclosed-array"],
)
def test_malformed_toml_names_its_line(project, text, line):
    pyproject = write(project / "pyproject.toml", text)

    res = invoke("check", ".", cwd=project)

    assert_fails(res, f"{pyproject.resolve()}:{line}: invalid TOML")


@pytest.mark.parametrize(
    ("key", "value", "complaint"),
    [
        ("select", '"PDL1"', "expected a list of rule codes"),
        ("extend-select", "[1, 2]", "expected a list of rule codes"),
        ("ignore", "true", "expected a list of rule codes"),
        ("per-file-ignores", '["*.py"]', "expected a table of glob = [codes]"),
        ("per-file-ignores", '{ "*.py" = "PDL1" }', "'*.py' expects a list of rule codes"),
        ("exclude", '"build"', "expected a list of strings"),
        ("extend-exclude", "[1]", "expected a list of strings"),
        ("packs", '"sglang"', "expected a list of strings"),
        ("entry-points", "{ a = 1 }", "expected a list of strings"),
        ("output-format", '"xml"', "expected one of concise, full, json, sarif, github"),
        ("exit-zero", "1", "expected true or false"),
        ("cache", '"no"', "expected true or false"),
        ("cache-dir", "[]", "expected a string"),
    ],
)
def test_wrong_value_type_names_file_line_and_key(project, key, value, complaint):
    pyproject = write(
        project / "pyproject.toml", f"[tool.pdlint]\n# the faulty key:\n{key} = {value}\n"
    )

    res = invoke("check", ".", cwd=project)

    assert_fails(res, f"{pyproject.resolve()}:3: key '{key}' in [tool.pdlint]", complaint)


def test_unknown_sub_table_names_its_header_line(project):
    pyproject = write(
        project / "pyproject.toml", '[tool.pdlint]\nselect = ["PDL"]\n\n[tool.pdlint.lint]\nx = 1\n'
    )

    res = invoke("check", ".", cwd=project)

    assert_fails(res, f"{pyproject.resolve()}:4: key 'lint' in [tool.pdlint]", "unknown key")


def test_unknown_code_in_per_file_ignores_names_the_line(project):
    pyproject = write(
        project / "pyproject.toml",
        '[tool.pdlint]\nselect = ["PDL"]\nper-file-ignores = { "*.py" = ["PDL1", "XYZ9"] }\n',
    )

    res = invoke("check", ".", cwd=project)

    assert_fails(
        res,
        f"{pyproject.resolve()}:3: key 'per-file-ignores'",
        "unknown rule code or prefix 'XYZ9'",
    )


def test_pdlint_table_that_is_not_a_table(project):
    pyproject = write(project / "pyproject.toml", "[tool]\npdlint = 3\n")

    res = invoke("check", ".", "--config", pyproject, cwd=project)

    assert_fails(res, str(pyproject), "must be a table")


def test_a_tool_key_that_is_not_a_table_is_no_pdlint_config(project):
    pyproject = write(project / "pyproject.toml", 'tool = "none"\n')

    res = invoke("check", ".", "--config", pyproject, cwd=project)

    assert res.returncode == 1
    assert_gap_found(res.stdout)


def test_config_naming_a_pack_that_does_not_exist(project):
    pyproject = write(
        project / "pyproject.toml", '[tool.pdlint]\n\npacks = ["sglang", "packs/mine.toml"]\n'
    )

    res = invoke("check", ".", cwd=project)

    assert_fails(
        res,
        f"{pyproject.resolve()}:3: key 'packs' in [tool.pdlint]",
        "rule pack 'packs/mine.toml' is neither a bundled pack (dynamo, lmcache, sglang, vllm) "
        "nor a file",
    )


def test_command_line_pack_that_does_not_exist(project):
    res = invoke("check", ".", "--packs", "nowhere.toml", cwd=project)

    assert_fails(res, "rule pack 'nowhere.toml' is neither a bundled pack")


@pytest.mark.parametrize("value", ["zero", "0", "-2", "1.5"])
def test_bad_worker_count_in_the_environment(project, monkeypatch, value):
    monkeypatch.setenv("PDLINT_WORKERS", value)
    res = invoke("check", ".", cwd=project)

    assert_fails(res, "PDLINT_WORKERS: expected a positive integer", f"'{value}'")


# --- rule packs -------------------------------------------------------------------------

PACK_HEAD = '[pack]\nname = "mine"\ndetect = ["relay_gap_engine"]\n\n[relay]\n'


@pytest.mark.parametrize(
    ("body", "line", "where", "complaint"),
    [
        ('entry-points = ["a.b"\n', 6, "", "invalid TOML"),
        ("entry-point = []\n", 6, " key 'entry-point' in [relay]", "unknown key (known keys:"),
        ("states = 3\n", 6, " key 'states' in [relay]", "expected a list of strings"),
        ('states = ["x", 1]\n', 6, " key 'states' in [relay]", "expected a list of strings"),
        (
            "states = []\n\n[checks]\nx = 1\n",
            8,
            " [checks]",
            "unknown section (known: [pack], [relay], [layout], [variants], [handoff])",
        ),
        ("states = []\n\n[pack.extra]\nx = 1\n", 8, " key 'extra' in [pack]", "unknown key"),
    ],
    ids=[
        "malformed",
        "unknown-key",
        "wrong-type",
        "wrong-item-type",
        "unknown-section",
        "sub-table",
    ],
)
def test_malformed_pack_names_file_line_and_key(project, body, line, where, complaint):
    pack = write(project / "mine.toml", PACK_HEAD + body)

    res = invoke("check", ".", "--packs", "mine.toml", cwd=project)

    assert_fails(res, f"{pack.resolve()}:{line}:{where}", complaint)


def test_pack_still_carrying_states_warns_and_runs(project):
    """``states`` is no longer read: a warning names the file, line and key."""
    pack = write(
        project / "mine.toml",
        PACK_HEAD + 'entry-points = ["*event_loop_disagg_decode"]\nstates = ["draft_input"]\n',
    )

    res = invoke("check", ".", "--packs", "mine.toml", cwd=project)

    assert res.returncode == 1
    assert_gap_found(res.stdout)
    assert res.stderr.splitlines() == [
        f"pdlint: warning: {pack.resolve()}:7: key 'states' in [relay]: no longer read "
        "(the relay check finds the per-request state where a builder's result is stored); "
        "remove it",
        "Found 2 findings (1 error).",
    ]


def test_the_bundled_packs_carry_no_retired_key():
    from pdlint.settings.packs import bundled, load_pack

    assert [load_pack(path).warnings for path in bundled().values()] == [()] * len(bundled())


def test_pack_name_of_the_wrong_type(project):
    pack = write(project / "mine.toml", "[pack]\n\nname = 7\n")

    res = invoke("check", ".", "--packs", "mine.toml", cwd=project)

    assert_fails(res, f"{pack.resolve()}:3: key 'name' in [pack]", "expected a string")


def test_pack_naming_functions_that_do_not_exist_warns_and_runs(project):
    pack = write(
        project / "mine.toml",
        PACK_HEAD
        + "entry-points = [\n"
        + '  "relay_gap_engine.gone.Loop.run",\n'
        + '  "*event_loop_disagg_decode",\n'
        + "]\n"
        + 'startup-validators = ["relay_gap_engine.config.validate"]\n',
    )

    res = invoke("check", ".", "--packs", "mine.toml", cwd=project)

    assert res.returncode == 1
    assert_gap_found(res.stdout)
    assert res.stderr.splitlines() == [
        f"pdlint: warning: {pack.resolve()}:7: [relay] entry-points: "
        "'relay_gap_engine.gone.Loop.run' matches no analysed function",
        f"pdlint: warning: {pack.resolve()}:10: [relay] startup-validators: "
        "'relay_gap_engine.config.validate' matches no analysed function",
        "Found 2 findings (1 error).",
    ]


def test_entry_point_option_matching_nothing_warns(project):
    res = invoke("check", ".", "--entry-point", "engine.Scheduler.loop", cwd=project)

    assert res.returncode == 1
    assert_gap_found(res.stdout)  # found from the name heuristic instead
    assert res.stderr == (
        "pdlint: warning: entry point 'engine.Scheduler.loop' matches no analysed function\n"
        "Found 2 findings (1 error).\n"
    )


def test_bundled_pack_whose_entry_points_are_all_missing_warns_once(tmp_path):
    # A package named like the framework, but none of the pack's entry points.
    pkg = write(tmp_path / "sglang" / "__init__.py", "")
    write(pkg.parent / "srt" / "__init__.py", "")
    write(
        pkg.parent / "srt" / "scheduler.py", "class Scheduler:\n    def run(self):\n        pass\n"
    )

    res = invoke("check", "sglang", cwd=tmp_path)

    assert (res.returncode, res.stdout) == (0, "")
    assert res.stderr.splitlines() == [
        "pdlint: warning: rule pack 'sglang': no [relay] entry-points name matches an analysed "
        "function",
        "pdlint: warning: rule pack 'sglang': no [relay] startup-validators name matches an "
        "analysed function",
        "All checks passed!",
        "No decode entry point found (by name or interface), so nothing was followed from "
        "one: name them with --entry-point or a rule pack.",
    ]
