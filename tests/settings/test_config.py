"""Configuration: ``[tool.pdlint]`` in pyproject.toml, ``--config``, and its errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pdlint_helpers import GAP_PDL001, GAP_PDL101, copy_relay_gap, run_pdlint

BROKEN_SOURCE = "def (\n"


def codes_in(stdout: str) -> set[str]:
    return {line.split(": ", 1)[1].split()[0] for line in stdout.splitlines()}


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """tmp_path/proj holding the relay_gap package (one PDL001, one PDL101)."""
    proj = tmp_path / "proj"
    copy_relay_gap(proj)
    return proj


# --- [tool.pdlint] discovery -----------------------------------------------------


def test_pyproject_above_the_first_path_is_honoured(project, tmp_path):
    write(
        project / "pyproject.toml",
        '[project]\nname = "demo"\n\n[tool.pdlint]\nignore = ["PDL1"]\n',
    )

    # Run from outside the project: the config is found from the path, not cwd.
    res = run_pdlint("check", "proj/relay_gap_engine", cwd=tmp_path)

    assert res.returncode == 0, res.stderr  # the PDL001 note alone never fails
    [line] = res.stdout.splitlines()
    assert line.startswith("proj/" + GAP_PDL001)


def test_pyproject_in_the_current_directory_is_not_used_for_another_path(project, tmp_path):
    cwd = tmp_path / "work"
    write(cwd / "pyproject.toml", '[tool.pdlint]\nignore = ["PDL"]\n')

    res = run_pdlint("check", project, cwd=cwd)

    assert codes_in(res.stdout) == {"PDL001", "PDL101"}


def test_nearest_pyproject_wins(project):
    write(project / "pyproject.toml", '[tool.pdlint]\nignore = ["PDL0"]\n')
    write(
        project / "relay_gap_engine" / "pyproject.toml",
        '[tool.pdlint]\nignore = ["PDL1"]\n',
    )

    res = run_pdlint("check", "relay_gap_engine", cwd=project)

    assert codes_in(res.stdout) == {"PDL001"}


def test_pyproject_without_a_pdlint_table_is_skipped(project):
    write(project / "pyproject.toml", '[tool.pdlint]\nignore = ["PDL1"]\n')
    write(project / "relay_gap_engine" / "pyproject.toml", '[project]\nname = "x"\n')

    res = run_pdlint("check", "relay_gap_engine", cwd=project)

    assert codes_in(res.stdout) == {"PDL001"}


def test_config_keys_mirror_the_flags(project):
    write(
        project / "pyproject.toml",
        "\n".join(
            [
                "[tool.pdlint]",
                'select = ["PDL1", "PDL9"]',
                'extend-exclude = ["legacy"]',
                'output-format = "json"',
                "exit-zero = true",
                "",
                "[tool.pdlint.per-file-ignores]",
                '"*/spec_utils.py" = ["PDL101"]',
                "",
            ]
        ),
    )
    write(project / "relay_gap_engine" / "legacy" / "old.py", BROKEN_SOURCE)
    write(project / "relay_gap_engine" / "broken.py", BROKEN_SOURCE)

    res = run_pdlint("check", ".", cwd=project)

    assert res.returncode == 0, res.stderr  # exit-zero
    findings = json.loads(res.stdout)  # output-format
    # select drops PDL001, per-file-ignores drops PDL101, extend-exclude the
    # legacy folder: only broken.py's PDL900 is left.
    assert [(f["code"], f["filename"]) for f in findings] == [
        ("PDL900", "relay_gap_engine/broken.py")
    ]


def test_command_line_flags_override_the_config(project):
    write(
        project / "pyproject.toml",
        '[tool.pdlint]\nignore = ["PDL1"]\noutput-format = "json"\n',
    )

    res = run_pdlint("check", ".", "--select", "PDL101", "--output-format", "concise", cwd=project)

    # An explicit --select PDL101 is longer than the configured ignore PDL1.
    assert res.stdout.splitlines()[0].startswith(GAP_PDL101)
    assert codes_in(res.stdout) == {"PDL101"}


def test_config_ignore_and_command_line_ignore_add_up(project):
    write(project / "pyproject.toml", '[tool.pdlint]\nignore = ["PDL1"]\n')

    res = run_pdlint("check", ".", "--ignore", "PDL0", cwd=project)

    assert (res.returncode, res.stdout) == (0, "")


# --- errors: exit 2 naming the key, the code, the file ---------------------------


def test_unknown_key_exits_2_naming_key_file_and_line(project):
    pyproject = write(
        project / "pyproject.toml",
        '[project]\nname = "demo"\n\n[tool.pdlint]\nignore = ["PDL1"]\nbogus-key = 1\n',
    )

    res = run_pdlint("check", ".", cwd=project)

    assert res.returncode == 2
    assert res.stdout == ""
    assert "'bogus-key'" in res.stderr
    assert f"{pyproject.resolve()}:6:" in res.stderr
    assert "unknown key" in res.stderr


def test_error_line_is_the_pdlint_tables_not_an_earlier_tables(project):
    pyproject = write(
        project / "pyproject.toml",
        '[tool.ruff]\nignore = ["E501"]\n\n[tool.pdlint]\n\nignore = ["PDL777"]\n',
    )

    res = run_pdlint("check", ".", cwd=project)

    assert res.returncode == 2
    assert f"{pyproject.resolve()}:6: key 'ignore' in [tool.pdlint]" in res.stderr


def test_unknown_key_in_a_nested_table_is_reported(project):
    write(project / "pyproject.toml", "[tool.pdlint.lint]\nselect = []\n")

    res = run_pdlint("check", ".", cwd=project)

    assert res.returncode == 2
    assert "'lint'" in res.stderr
    assert "pyproject.toml" in res.stderr


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("ignore", '["PDL777"]'),
        ("select", '["PDL1", "QQ1"]'),
        ("extend-select", '["PDL4"]'),
    ],
)
def test_unknown_code_in_config_exits_2(project, key, value):
    pyproject = write(project / "pyproject.toml", f"[tool.pdlint]\n{key} = {value}\n")

    res = run_pdlint("check", ".", cwd=project)

    assert res.returncode == 2
    assert res.stdout == ""
    bad = json.loads(value)[-1]
    assert f"'{bad}'" in res.stderr
    assert f"{pyproject.resolve()}:2:" in res.stderr
    assert f"'{key}'" in res.stderr


def test_unknown_code_in_per_file_ignores_config_exits_2(project):
    write(
        project / "pyproject.toml",
        '[tool.pdlint.per-file-ignores]\n"*.py" = ["PDL555"]\n',
    )

    res = run_pdlint("check", ".", cwd=project)

    assert res.returncode == 2
    assert "'PDL555'" in res.stderr
    assert "pyproject.toml" in res.stderr


@pytest.mark.parametrize(
    ("line", "complaint"),
    [
        ('ignore = "PDL1"', "expected a list"),
        ('output-format = "xml"', "expected one of"),
        ('exit-zero = "yes"', "expected true or false"),
    ],
)
def test_wrong_value_type_exits_2(project, line, complaint):
    write(project / "pyproject.toml", f"[tool.pdlint]\n{line}\n")

    res = run_pdlint("check", ".", cwd=project)

    assert res.returncode == 2
    assert complaint in res.stderr
    assert line.split(" ")[0] in res.stderr


@pytest.mark.parametrize(
    "text",
    [
        '[tool.pdlint]\nignore = ["PDL1"\n',
        '[tool.pdlint]\nignore = ["PDL1"]\n[tool.pdlint]\n',
        "[tool.pdlint]\nselect = PDL1\n",
    ],
)
def test_malformed_toml_exits_2_naming_the_file(project, text):
    pyproject = write(project / "pyproject.toml", text)

    res = run_pdlint("check", ".", cwd=project)

    assert res.returncode == 2
    assert res.stdout == ""
    assert str(pyproject.resolve()) in res.stderr
    assert "invalid TOML" in res.stderr


# --- --config PATH ---------------------------------------------------------------


def test_config_flag_with_a_bare_toml_file(project, tmp_path):
    config = write(tmp_path / "settings" / "pdlint.toml", 'ignore = ["PDL1"]\n')

    res = run_pdlint("check", ".", "--config", config, cwd=project)

    assert res.returncode == 0, res.stderr  # the PDL001 note alone never fails
    assert codes_in(res.stdout) == {"PDL001"}


def test_config_flag_wins_over_the_pyproject(project, tmp_path):
    write(project / "pyproject.toml", '[tool.pdlint]\nignore = ["PDL0"]\n')
    config = write(tmp_path / "pdlint.toml", 'ignore = ["PDL1"]\n')

    res = run_pdlint("check", ".", "--config", config, cwd=project)

    assert codes_in(res.stdout) == {"PDL001"}


def test_config_flag_with_a_pyproject_file(project, tmp_path):
    config = write(tmp_path / "other" / "pyproject.toml", '[tool.pdlint]\nselect = ["PDL0"]\n')

    res = run_pdlint("check", ".", "--config", config, cwd=project)

    assert codes_in(res.stdout) == {"PDL001"}


def test_config_flag_unknown_key_in_a_bare_file(project, tmp_path):
    config = write(tmp_path / "pdlint.toml", 'ignore = []\n\nselekt = ["PDL1"]\n')

    res = run_pdlint("check", ".", "--config", config, cwd=project)

    assert res.returncode == 2
    assert "'selekt'" in res.stderr
    assert f"{config}:3:" in res.stderr


def test_config_flag_malformed_bare_file(project, tmp_path):
    config = write(tmp_path / "pdlint.toml", "ignore = [\n")

    res = run_pdlint("check", ".", "--config", config, cwd=project)

    assert res.returncode == 2
    assert str(config) in res.stderr
    assert "invalid TOML" in res.stderr


def test_config_flag_missing_file_exits_2(project):
    res = run_pdlint("check", ".", "--config", "nowhere.toml", cwd=project)

    assert res.returncode == 2
    assert "nowhere.toml" in res.stderr


def test_settings_modules_import_one_way():
    """toml <- packs <- config: reading packs never loads the settings module."""
    code = (
        "import sys, pdlint.settings.packs; "
        "print('pdlint.settings.config' in sys.modules, 'pdlint.settings.toml' in sys.modules)"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)

    assert (res.returncode, res.stdout) == (0, "False True\n"), res.stderr
