"""``pdlint check --add-noqa`` (ruff's): a ``# noqa: CODE`` on each finding's line,
merged with the comment there, every other byte of the file kept; the next check
reports nothing for those findings and the next ``--add-noqa`` adds nothing."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest
from pdlint_helpers import CONSUMER, chdir, fixture_dirs, run_pdlint
from real_sglang import sglang_tree

from pdlint.api import analyze
from pdlint.findings import Finding, Location
from pdlint.policy.add_noqa import add_noqa, merged_comment
from pdlint.policy.noqa import NOQA_RE, comment_lines, noqa_codes
from pdlint.policy.selection import apply_policy
from pdlint.settings.config import Settings
from pdlint.source.read import split_lines


@pytest.mark.parametrize(
    ("comment", "codes", "merged"),
    [
        (None, {"PDL101"}, "# noqa: PDL101"),
        (None, {"PDL201", "PDL101"}, "# noqa: PDL101, PDL201"),
        ("# why", {"PDL101"}, "# why  # noqa: PDL101"),
        ("# noqa: E501", {"PDL101"}, "# noqa: E501, PDL101"),
        ("# noqa:PDL103,E501", {"PDL101"}, "# noqa: E501, PDL101, PDL103"),
        ("# type: ignore  # noqa: E501", {"PDL101"}, "# type: ignore  # noqa: E501, PDL101"),
        ("# noqa: E501 because the URL is long", {"PDL101"}, None),  # see below
        ("# noqa", {"PDL101"}, None),  # a bare noqa suppresses everything already
        ("# noqa: PDL101", {"PDL101"}, None),
    ],
)
def test_merged_comment(comment: str | None, codes: set[str], merged: str | None) -> None:
    if comment == "# noqa: E501 because the URL is long":
        merged = "# noqa: E501, PDL101 because the URL is long"  # the words after stay
    assert merged_comment(comment, codes) == merged


# --- the command line on a fixture ----------------------------------------------------


def test_add_noqa_then_check_passes(relay_gap: Path) -> None:
    consumer = relay_gap / CONSUMER
    before = consumer.read_text()

    res = run_pdlint("check", ".", "--add-noqa", cwd=relay_gap)

    assert (res.returncode, res.stdout, res.stderr) == (0, "", "Added 2 noqa directives.\n")
    after = consumer.read_text()
    assert after == before.replace(
        "        batch.draft_input.prepare(batch)\n",
        "        batch.draft_input.prepare(batch)  # noqa: PDL101\n",
    )
    again = run_pdlint("check", ".", cwd=relay_gap)
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "All checks passed!\n")
    twice = run_pdlint("check", ".", "--add-noqa", cwd=relay_gap)
    assert (twice.returncode, twice.stderr) == (0, "Added 0 noqa directives.\n")
    assert consumer.read_text() == after


def test_add_noqa_merges_with_the_comment_there(relay_gap: Path) -> None:
    consumer = relay_gap / CONSUMER
    text = consumer.read_text()
    line = "        batch.draft_input.prepare(batch)"
    consumer.write_text(text.replace(line + "\n", line + "  # noqa: E501\n"))

    res = run_pdlint("check", ".", "--add-noqa", "--select", "PDL101", cwd=relay_gap)

    assert res.stderr == "Added 1 noqa directive.\n"
    assert line + "  # noqa: E501, PDL101\n" in consumer.read_text()


def test_add_noqa_refuses_stdin(relay_gap: Path) -> None:
    res = run_pdlint("check", "-", "--add-noqa", stdin="x = 1\n", cwd=relay_gap)

    assert res.returncode == 2
    assert (
        res.stderr
        == "pdlint: error: --add-noqa writes into the files: it cannot take '-' (stdin)\n"
    )


# --- round trips ----------------------------------------------------------------------


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _wanted(findings: list[tuple[str, int, str]], path: str) -> dict[int, set[str]]:
    """Line -> the codes its comment must name, for the findings (file, line, code)
    in ``path`` (each on the line whose comment stands for it)."""
    moved = comment_lines(split_lines(Path(path).read_text()))
    out: dict[int, set[str]] = {}
    for name, line, code in findings:
        if name == path:
            out.setdefault(moved.get(line, line), set()).add(code)
    return out


def _assert_only_noqa_added(
    before: list[bytes], after: list[bytes], wanted: dict[int, set[str]]
) -> None:
    """The files differ only on the lines of ``wanted``, each by a noqa comment at its
    end naming the codes (merged into the noqa comment there, if any)."""
    assert len(before) == len(after)
    for number, (old_line, new_line) in enumerate(zip(before, after, strict=True), start=1):
        if number not in wanted:
            assert old_line == new_line, number
            continue
        old, new = old_line.decode(), new_line.decode()
        end = old[len(old.rstrip("\r\n")) :]
        assert new.endswith(end)
        old, new = old[: len(old) - len(end)], new[: len(new) - len(end)]
        existing = NOQA_RE.search(old)
        if existing is None:
            assert new.startswith(old.rstrip() + "  # noqa: "), (old, new)
            assert noqa_codes(new) == tuple(sorted(wanted[number]))
        else:
            assert new[: existing.start()] == old[: existing.start()]
            named = noqa_codes(old) or ()
            assert noqa_codes(new) in ((), tuple(sorted({*named, *wanted[number]})))


def _fixtures_with_findings() -> list[Path]:
    return [p for p in fixture_dirs() if (p / "expected.txt").read_text().strip()]


@pytest.mark.parametrize("folder", _fixtures_with_findings(), ids=lambda p: p.name)
def test_round_trip_on_every_fixture(folder: Path, tmp_path: Path) -> None:
    tree = tmp_path / folder.name
    shutil.copytree(folder, tree)
    settings = Settings(root=str(tree), cache=False)
    with chdir(tree):
        found = analyze(["."], settings).findings
        assert found
        files = {f.location.path for f in found}
        before = {path: _lines(Path(path)) for path in files}

        added, warnings = add_noqa(found)

        assert warnings == [] and added >= 1
        where = [(f.location.path, f.location.line, f.code) for f in found]
        for path in files:
            _assert_only_noqa_added(before[path], _lines(Path(path)), _wanted(where, path))
            assert ast.dump(ast.parse(b"".join(before[path]))) == ast.dump(
                ast.parse(Path(path).read_bytes())
            )
        assert analyze(["."], settings).findings == []  # nor any PDL902: each comment serves
        assert add_noqa(found) == (0, [])


# Real files of a release: decorators, signatures over several lines, strings spanning
# lines, lines joined by backslashes, noqa comments of other tools.
REAL_FILES = (
    "sglang/srt/speculative/spec_info.py",
    "sglang/srt/disaggregation/decode.py",
    "sglang/srt/multiplex/pdmux_context.py",
    "sglang/multimodal_gen/runtime/utils/argparse.py",
    "sglang/srt/mem_cache/storage/flexkv/flexkv_connector.py",
)


@pytest.mark.real
def test_round_trip_on_real_files(tmp_path: Path) -> None:
    """A finding on every line with code (the lines a check can report on): each gets
    its comment where ruff puts it, the files keep every other byte and their syntax
    tree, and each finding is then suppressed."""
    tree = sglang_tree("0.5.23")
    for name in REAL_FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(tree / name, tmp_path / name)
    with chdir(tmp_path):
        findings = []
        for name in REAL_FILES:
            for number, line in enumerate(split_lines(Path(name).read_text()), start=1):
                if line.strip() and not line.strip().startswith("#"):
                    where = Location(name, number, 1, number, 2)
                    findings.append(Finding("PDL101", "m", where))
        before = {name: _lines(Path(name)) for name in REAL_FILES}

        added, warnings = add_noqa(findings)

        assert warnings == []
        assert added > 1000
        for name in REAL_FILES:
            text = Path(name).read_text()
            lines = split_lines(text)
            assert comment_lines(lines)  # each has a string spanning lines or a backslash
            where = [(f.location.path, f.location.line, f.code) for f in findings]
            _assert_only_noqa_added(before[name], _lines(Path(name)), _wanted(where, name))
            assert ast.dump(ast.parse(b"".join(before[name]))) == ast.dump(ast.parse(text))
            mine = [f for f in findings if f.location.path == name]
            assert apply_policy(mine, Settings(), {name: lines}) == []  # each suppressed
        after = {name: Path(name).read_bytes() for name in REAL_FILES}
        assert add_noqa(findings) == (0, [])
        assert {name: Path(name).read_bytes() for name in REAL_FILES} == after


@pytest.mark.real
def test_round_trip_on_a_release(tmp_path: Path) -> None:
    """The command line on sglang 0.5.16: comments on the findings' lines only, then
    a check that finds nothing, then nothing more to add."""
    tree = tmp_path / "tree"
    shutil.copytree(sglang_tree("0.5.16") / "sglang", tree / "sglang")
    cache = str(tmp_path / "cache")
    first = run_pdlint("check", "sglang", "--output-format", "json", "--cache-dir", cache, cwd=tree)
    assert first.returncode == 1
    found = json.loads(first.stdout)
    files = {f["filename"] for f in found}
    before = {name: _lines(tree / name) for name in files}

    res = run_pdlint("check", "sglang", "--add-noqa", "--cache-dir", cache, cwd=tree)

    assert res.returncode == 0
    added = int(res.stderr.split()[1])
    assert res.stderr == f"Added {added} noqa directives.\n" and 0 < added <= len(found)
    where = [(f["filename"], f["location"]["row"], f["code"]) for f in found]
    with chdir(tree):
        for name in files:
            _assert_only_noqa_added(before[name], _lines(Path(name)), _wanted(where, name))
    again = run_pdlint("check", "sglang", "--cache-dir", cache, cwd=tree)
    assert (again.returncode, again.stdout) == (0, "")
    assert again.stderr.startswith("All checks passed!\n")  # then the files not parsed
    twice = run_pdlint("check", "sglang", "--add-noqa", "--cache-dir", cache, cwd=tree)
    assert twice.stderr == "Added 0 noqa directives.\n"
