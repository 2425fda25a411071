"""``[tool.pdlint]`` however TOML writes it: the file is parsed, never searched, so
dotted keys under ``[tool]`` or at the top level are the table too."""

from __future__ import annotations

import pytest
from pdlint_helpers import GAP_PDL001, run_pdlint


@pytest.mark.parametrize(
    "text",
    [
        '[project]\nname = "x"\n\n[tool]\npdlint.ignore = ["PDL101"]\n',
        'tool.pdlint.ignore = ["PDL101"]\n',
        '[tool]\n"pdlint" . ignore = ["PDL101"]\n',
        "[tool.pdlint.per-file-ignores]\n'relay_gap_engine/*.py' = [\"PDL101\"]\n",
    ],
    ids=["under-tool", "top-level", "quoted", "sub-table-only"],
)
def test_a_dotted_key_table_is_read(relay_gap, text):
    (relay_gap / "pyproject.toml").write_text(text)

    res = run_pdlint("check", ".", cwd=relay_gap)

    assert res.returncode == 0, res.stderr  # the PDL001 note alone
    (line,) = res.stdout.splitlines()
    assert line.startswith(GAP_PDL001)


def test_a_mention_in_a_string_is_not_the_table(relay_gap):
    # the nearest pyproject.toml only names [tool.pdlint] in a string: the one above rules
    (relay_gap.parent / "pyproject.toml").write_text('[tool.pdlint]\nignore = ["PDL101"]\n')
    (relay_gap / "pyproject.toml").write_text(
        '[project]\ndescription = """\n[tool.pdlint]\nignore = ["PDL0"]\n"""\n'
    )

    res = run_pdlint("check", ".", cwd=relay_gap)

    assert res.returncode == 0, res.stderr
    (line,) = res.stdout.splitlines()
    assert line.startswith(GAP_PDL001)


def test_a_dotted_keys_fault_names_its_line(relay_gap):
    (relay_gap / "pyproject.toml").write_text(
        '[tool.ruff]\nignore = ["E"]\n\n[tool]\npdlint.select = ["PDL"]\npdlint.ignore = ["X9"]\n'
    )

    res = run_pdlint("check", ".", cwd=relay_gap)

    assert res.returncode == 2
    assert res.stderr == (
        f"pdlint: error: {relay_gap}/pyproject.toml:6: key 'ignore' in [tool.pdlint]: "
        "unknown rule code or prefix 'X9'\n"
    )


def test_a_malformed_pyproject_names_its_line_though_pdlint_is_not_in_it(relay_gap):
    (relay_gap / "pyproject.toml").write_text('[project]\nname = "x"\nversion = 1.2.3\n')

    res = run_pdlint("check", ".", cwd=relay_gap)

    assert res.returncode == 2
    assert res.stderr.startswith(f"pdlint: error: {relay_gap}/pyproject.toml:3: invalid TOML: ")
    assert res.stdout == ""
