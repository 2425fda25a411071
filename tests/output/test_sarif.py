"""SARIF output: GitHub's line hash, the log's shape, and real validators."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from pdlint_helpers import fixture, fixture_dirs, invoke
from sarif_assets import AssetUnavailable, multitool_argv
from sarif_checks import schema_errors, unavailable

from pdlint.checks.catalogue import RULES
from pdlint.findings import Finding, Location, Related, Step
from pdlint.output.sarif import dumps, to_sarif
from pdlint.policy.fingerprints import line_hashes, logical_fingerprint

# Test vectors published in github/codeql-action, src/fingerprints.test.ts.
CODEQL_ACTION_VECTORS = [
    ("", ["c129715d7a2bc9a3:1"]),
    (
        " a\nb\n  \t\tc\n d",
        [
            "271789c17abda88f:1",
            "54703d4cd895b18:1",
            "180aee12dab6264:1",
            "a23a3dc5e078b07b:1",
        ],
    ),
    (
        " hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End",
        [
            "8b7cf3e952e7aeb2:1",
            "b1ae1287ec4718d9:1",
            "bff680108adb0fcc:1",
            "c6805c5e1288b612:1",
            "b86d3392aea1be30:1",
            "e6ceba753e1a442:1",
        ],
    ),
    *[
        (
            text,
            [
                "e9496ae3ebfced30:1",
                "fb7c023a8b9ccb3f:1",
                "ce8ba1a563dcdaca:1",
                "e20e36e16fcb0cc8:1",
                "b3edc88f2938467e:1",
                "c8e28b0b4002a3a0:1",
                "c129715d7a2bc9a3:1",
            ],
        )
        for text in (
            " hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End\n",
            " hello; \t\nworld!!!\r\r\r  \t\tGreetings\r End\r",
            " hello; \t\r\nworld!!!\r\n\r\n\r\n  \t\tGreetings\r\n End\r\n",
            " hello; \t\nworld!!!\r\n\n\r  \t\tGreetings\r End\r\n",
        )
    ],
    (
        "Lorem ipsum dolor sit amet.\n" * 10,
        [
            "a7f2ff13bc495cf2:1",
            "a7f2ff13bc495cf2:2",
            "a7f2ff13bc495cf2:3",
            "a7f2ff13bc495cf2:4",
            "a7f2ff13bc495cf2:5",
            "a7f2ff13bc495cf2:6",
            "a7f2ff1481e87703:1",
            "a9cf91f7bbf1862b:1",
            "55ec222b86bcae53:1",
            "cc97dc7b1d7d8f7b:1",
            "c129715d7a2bc9a3:1",
        ],
    ),
    (
        "x = 2\nx = 1\nprint(x)\nx = 3\nprint(x)\nx = 4\nprint(x)\n",
        [
            "e54938cc54b302f1:1",
            "bb609acbe9138d60:1",
            "1131fd5871777f34:1",
            "5c482a0f8b35ea28:1",
            "54517377da7028d2:1",
            "2c644846cb18d53e:1",
            "f1b89f20de0d133:1",
            "c129715d7a2bc9a3:1",
        ],
    ),
]


@pytest.mark.parametrize(("text", "expected"), CODEQL_ACTION_VECTORS)
def test_line_hashes_match_codeql_action_vectors(text: str, expected: list[str]):
    assert line_hashes(text) == expected


def test_line_hashes_count_utf16_code_units_like_javascript():
    # codeql-action hashes charCodeAt(): an astral character is two surrogates.
    assert line_hashes("x = '\U0001f600'\n") == line_hashes("x = '\ud83d\ude00'\n")
    assert line_hashes("\U0001f600") != line_hashes("\ufffd")


# --- a small imitation of a serving engine, and findings on it -------------

SCHEDULER = """\
from pkg.spec import Algo


class Scheduler:
    def event_loop_disagg_decode(self):
        batch = self.next_batch()
        self.run_batch(batch)

    def run_batch(self, batch):
        if batch.algo.is_dflash():
            batch.draft_input.prepare(batch)
"""

SPEC = """\
class Algo:
    def build_draft_input(self, batch):
        if self.is_eagle():
            return EagleDraftInput(batch)
        return None
"""

FILES = {
    "pkg/scheduler.py": SCHEDULER,
    "pkg/spec.py": SPEC,
    "pkg/broken.py": "x = (1,\n",
    "pkg/odd name é.py": "value = [1]\n",
}


def loc(path: str, line: int, col: int, end_line: int, end_col: int) -> Location:
    return Location(path, line, col, end_line, end_col)


def sample_findings() -> list[Finding]:
    consumer = loc("pkg/scheduler.py", 11, 13, 11, 45)
    return [
        Finding(
            code="PDL101",
            message="DFLASH reaches batch.draft_input.prepare() with draft_input unset",
            location=consumer,
            related=(
                Related(
                    loc("pkg/spec.py", 5, 9, 5, 20),
                    "Algo.build_draft_input returns None for DFLASH",
                ),
                Related(loc("pkg/scheduler.py", 5, 5, 5, 41), "decode entry point"),
            ),
            path=(
                Step(
                    loc("pkg/scheduler.py", 7, 9, 7, 30),
                    "pkg.scheduler.Scheduler.event_loop_disagg_decode",
                    "calls run_batch",
                ),
                Step(consumer, "pkg.scheduler.Scheduler.run_batch", "dereferences"),
            ),
            member="DFLASH",
            key=(
                "PDL101",
                "pkg.scheduler.Scheduler.event_loop_disagg_decode",
                "DFLASH",
                "pkg.scheduler.Scheduler.run_batch:draft_input",
            ),
        ),
        Finding(
            code="PDL001",
            message="Algo.build_draft_input returns None for {DFLASH, NGRAM}",
            location=loc("pkg/spec.py", 5, 9, 5, 20),
            key=("PDL001", "pkg.spec.Algo.build_draft_input"),
        ),
        Finding(
            code="PDL900",
            message="cannot parse: '(' was never closed",
            location=loc("pkg/broken.py", 1, 5, 1, 6),
            key=("PDL900", "pkg/broken.py"),
        ),
        Finding(
            code="PDL102",
            message="IDLE batch reaches value[0] [no guard]",
            location=loc("pkg/odd name é.py", 1, 1, 1, 6),
            member="IDLE",
        ),
    ]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    for rel, text in FILES.items():
        target = tmp_path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return tmp_path


def build(root: Path, findings: list[Finding] | None = None, **kw: Any) -> dict:
    kw.setdefault("sources", None)
    kw.setdefault("version", "0.1.0")
    return to_sarif(sample_findings() if findings is None else findings, root=root, **kw)


def result_for(log: dict, code: str) -> dict:
    (found,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == code]
    return found


def test_driver_lists_every_rule_with_github_metadata(tree: Path):
    log = build(tree)
    assert log["version"] == "2.1.0"
    assert len(log["runs"]) == 1
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "pdlint"
    assert driver["version"] == "0.1.0"
    assert driver["informationUri"].startswith("https://")
    assert [r["id"] for r in driver["rules"]] == list(RULES)
    for descriptor, rule in zip(driver["rules"], RULES.values(), strict=True):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"].startswith(rule.summary)
        assert descriptor["fullDescription"]["text"]
        assert rule.example.splitlines()[0] in descriptor["help"]["text"]
        assert "```python" in descriptor["help"]["markdown"]
        assert descriptor["helpUri"] == rule.help_uri
        assert descriptor["defaultConfiguration"]["level"] == rule.severity
        props = descriptor["properties"]
        assert props["tags"] == list(rule.tags)
        assert props["precision"] == rule.precision
        expected = {"error": "error", "warning": "warning", "note": "recommendation"}
        assert props["problem.severity"] == expected[rule.severity]


def test_run_declares_columns_root_and_automation_id(tree: Path):
    run = build(tree)["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["automationDetails"] == {"id": "pdlint/"}
    root_uri = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
    assert root_uri == tree.resolve().as_uri() + "/"


def test_result_carries_rule_level_locations_links_and_flow(tree: Path):
    log = build(tree)
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    result = result_for(log, "PDL101")
    assert rules[result["ruleIndex"]]["id"] == "PDL101"
    assert result["level"] == "error"
    physical = result["locations"][0]["physicalLocation"]
    assert physical["artifactLocation"] == {
        "uri": "pkg/scheduler.py",
        "uriBaseId": "%SRCROOT%",
    }
    assert physical["region"] == {
        "startLine": 11,
        "startColumn": 13,
        "endLine": 11,
        "endColumn": 45,
    }
    related = result["relatedLocations"]
    assert [r["id"] for r in related] == [1, 2]
    assert related[0]["message"]["text"] == ("Algo.build_draft_input returns None for DFLASH")
    assert related[0]["physicalLocation"]["artifactLocation"]["uri"] == "pkg/spec.py"
    text = result["message"]["text"]
    assert text.startswith("DFLASH reaches batch.draft_input.prepare()")
    assert "[Algo.build_draft_input returns None for DFLASH](1)" in text
    assert "[decode entry point](2)" in text
    (flow,) = result["codeFlows"]
    (thread,) = flow["threadFlows"]
    steps = thread["locations"]
    assert [s["location"]["message"]["text"] for s in steps] == [
        "calls run_batch",
        "dereferences",
    ]
    assert steps[0]["location"]["physicalLocation"]["region"]["startLine"] == 7
    assert result["properties"] == {"member": "DFLASH"}


def test_note_rules_give_note_results_and_parse_errors_are_results(tree: Path):
    log = build(tree)
    assert result_for(log, "PDL001")["level"] == "note"
    parse_error = result_for(log, "PDL900")
    assert parse_error["level"] == "error"
    uri = parse_error["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "pkg/broken.py"


def test_uris_are_percent_encoded_and_brackets_escaped(tree: Path):
    result = result_for(build(tree), "PDL102")
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "pkg/odd%20name%20%C3%A9.py"
    assert result["message"]["text"] == "IDLE batch reaches value\\[0\\] \\[no guard\\]"


def test_primary_line_hash_is_codeql_actions_hash_of_the_line(tree: Path):
    log = build(tree)
    for result in log["runs"][0]["results"]:
        physical = result["locations"][0]["physicalLocation"]
        rel = unquote(physical["artifactLocation"]["uri"])
        line = physical["region"]["startLine"]
        expected = line_hashes(FILES[rel])[line - 1]
        assert result["partialFingerprints"]["primaryLocationLineHash"] == expected


def test_sources_are_used_instead_of_disk(tree: Path):
    edited = "# a new first line\n" + SCHEDULER
    from_disk = result_for(build(tree), "PDL101")
    from_sources = result_for(build(tree, sources={"pkg/scheduler.py": edited}), "PDL101")
    assert from_sources["partialFingerprints"]["primaryLocationLineHash"] == line_hashes(edited)[10]
    assert (
        from_disk["partialFingerprints"]["primaryLocationLineHash"]
        != from_sources["partialFingerprints"]["primaryLocationLineHash"]
    )


def test_no_line_hash_when_the_file_cannot_be_read(tmp_path: Path):
    finding = Finding("PDL900", "cannot read", loc("gone.py", 1, 1, 1, 1))
    result = to_sarif([finding], root=tmp_path, sources=None, version="0")["runs"][0]["results"][0]
    assert "primaryLocationLineHash" not in result["partialFingerprints"]
    assert "pdlintLogicalFingerprint/v1" in result["partialFingerprints"]


def test_logical_fingerprint_ignores_lines(tree: Path):
    finding = sample_findings()[0]
    moved = Finding(
        code=finding.code,
        message=finding.message,
        location=loc("pkg/scheduler.py", 40, 13, 40, 45),
        related=finding.related,
        path=finding.path,
        member=finding.member,
        key=finding.key,
    )
    expected = hashlib.sha256("\0".join(finding.key).encode()).hexdigest()
    prints = [
        result_for(build(tree, [f]), "PDL101")["partialFingerprints"] for f in (finding, moved)
    ]
    assert prints[0]["pdlintLogicalFingerprint/v1"] == expected + ":1"
    assert prints[1]["pdlintLogicalFingerprint/v1"] == expected + ":1"
    assert logical_fingerprint(moved) == expected


def test_findings_sharing_a_key_are_numbered_in_file_order(tree: Path):
    first = sample_findings()[0]
    later = dataclasses.replace(first, location=loc("pkg/scheduler.py", 12, 13, 12, 45))
    other = sample_findings()[1]
    for order in ([later, other, first], [first, later, other]):
        results = build(tree, order)["runs"][0]["results"]
        prints = {
            (r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]): r[
                "partialFingerprints"
            ]["pdlintLogicalFingerprint/v1"]
            for r in results
        }
        key_hash = logical_fingerprint(first)
        assert prints == {
            ("PDL101", 11): f"{key_hash}:1",
            ("PDL101", 12): f"{key_hash}:2",
            ("PDL001", 5): f"{logical_fingerprint(other)}:1",
        }


def test_logical_fingerprint_without_key_uses_code_path_member_message():
    finding = sample_findings()[3]
    parts = ("PDL102", "pkg/odd name é.py", "IDLE", finding.message)
    expected = hashlib.sha256("\0".join(parts).encode()).hexdigest()
    assert logical_fingerprint(finding) == expected


def test_output_is_deterministic(tree: Path):
    findings = sample_findings()
    first = dumps(build(tree, findings))
    for seed in range(5):
        shuffled = findings[:]
        random.Random(seed).shuffle(shuffled)
        assert dumps(build(tree, shuffled)) == first
    locations = [
        r["locations"][0]["physicalLocation"] for r in json.loads(first)["runs"][0]["results"]
    ]
    keys = [(p["artifactLocation"]["uri"], p["region"]["startLine"]) for p in locations]
    assert keys == sorted(keys)


# --- validation by independent tools ----------------------------------------


def _broken(log: dict) -> dict:
    """A copy of ``log`` with mistakes both validators must catch."""
    broken = json.loads(json.dumps(log))
    physical = broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    physical["region"]["startLine"] = 0
    physical["artifactLocation"]["uri"] = "C:\\src\\pkg\\x.py"
    broken["runs"][0]["results"][0]["ruleIndex"] = "0"
    return broken


def test_sarif_validates_against_the_oasis_schema(tree: Path):
    assert schema_errors(build(tree)) == []
    assert schema_errors(build(tree, [])) == []
    assert schema_errors(_broken(build(tree)))  # the check is not vacuous


def _multitool_errors(files: dict[str, Path], report: Path) -> dict[str, list[str]]:
    """Error-level results of one ``sarif-multitool validate --rule-kind Gh;Sarif``
    run over every file in ``files`` (name -> path), by name."""
    report.unlink(missing_ok=True)
    args = ["validate", "--rule-kind", "Gh;Sarif", "--output", str(report)]
    try:
        argv = multitool_argv([*args, *(str(path) for path in files.values())])
    except AssetUnavailable as exc:
        unavailable(str(exc))
    env = dict(os.environ)
    env.setdefault("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=env, check=False)
    output = proc.stdout + proc.stderr
    assert report.is_file(), output
    assert f"Done. {len(files)} files scanned." in output, output
    validation = json.loads(report.read_text(encoding="utf-8-sig"))
    run = validation["runs"][0]
    assert run["invocations"][0]["executionSuccessful"], output
    rules = run["tool"]["driver"].get("rules", [])

    def level(result: dict) -> str:
        # A result without a level takes its rule's default, else "warning".
        if "level" in result:
            return result["level"]
        index = result.get("ruleIndex", -1)
        if 0 <= index < len(rules):
            return rules[index].get("defaultConfiguration", {}).get("level", "warning")
        return "warning"

    # Each result is located in the log it is about.
    by_uri = {path.resolve().as_uri(): name for name, path in files.items()}
    errors: dict[str, list[str]] = {name: [] for name in files}
    for result in run.get("results", []):
        if level(result) != "error":
            continue
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        errors[by_uri[uri]].append(f"{result['ruleId']}: {result['message'].get('arguments')}")
    return errors


# --- the SARIF of every fixture, and of a run in a repository subdirectory ----

FIXTURE_DIRS = sorted(p.name for p in fixture_dirs() if p.is_dir())


def _cli_sarif(cwd: Path, *args: str) -> dict:
    proc = invoke("check", "--output-format", "sarif", *args, cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def _git_init(directory: Path) -> None:
    subprocess.run(["git", "init", "-q", str(directory)], check=True, timeout=60)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """Every SARIF log the validators check, by name; ``fixture:NAME`` for each
    folder under fixtures/, made by the real CLI in that folder."""
    sample = tmp_path_factory.mktemp("sample")
    for rel, text in FILES.items():
        target = sample / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    out = {
        "sample": build(sample),
        "sample-empty": build(sample, []),
        "sample-broken": _broken(build(sample)),
        "repository-subdir": _cli_sarif(_repository_with_subdir(tmp_path_factory), "."),
    }
    for name in FIXTURE_DIRS:
        out[f"fixture:{name}"] = _cli_sarif(fixture(name), ".")
    return out


def _repository_with_subdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository whose ``service`` folder holds the relay_gap package and
    a file that does not parse; returns that folder (where pdlint runs)."""
    repo = tmp_path_factory.mktemp("repo")
    _git_init(repo)
    service = repo / "service"
    shutil.copytree(fixture("relay_gap"), service)
    (service / "relay_gap_engine" / "broken é.py").write_text("x = (1,\n", encoding="utf-8")
    return service


@pytest.fixture(scope="module")
def multitool(logs: dict[str, dict], tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Multitool errors of every log in ``logs``, from a single invocation."""
    directory = tmp_path_factory.mktemp("multitool")
    files = {}
    for i, (name, log) in enumerate(sorted(logs.items())):
        files[name] = directory / f"{i:03d}.sarif"
        files[name].write_text(dumps(log), encoding="utf-8")
    return _multitool_errors(files, directory / "validation.sarif")


def test_sarif_passes_the_multitool_github_and_sarif_rules(multitool: dict):
    assert multitool["sample"] == []
    assert multitool["sample-empty"] == []
    assert multitool["repository-subdir"] == []
    assert multitool["sample-broken"]  # not vacuous, and blamed on that file only


def test_there_are_fixture_logs(logs: dict[str, dict]):
    names = [name for name in logs if name.startswith("fixture:")]
    assert len(names) == len(FIXTURE_DIRS) >= 10


@pytest.mark.parametrize("name", FIXTURE_DIRS)
def test_fixture_sarif_passes_the_multitool(multitool: dict, name: str):
    assert multitool[f"fixture:{name}"] == []


@pytest.mark.parametrize("name", FIXTURE_DIRS)
def test_fixture_sarif_validates_against_the_oasis_schema(logs: dict[str, dict], name: str):
    assert schema_errors(logs[f"fixture:{name}"]) == []


def _artifact_path(run: dict, physical: dict) -> Path:
    """The file a physical location names, resolved as a SARIF consumer does."""
    artifact = physical["artifactLocation"]
    uri = artifact["uri"]
    if "uriBaseId" in artifact:
        base = run["originalUriBaseIds"][artifact["uriBaseId"]]["uri"]
        uri = base + uri
    assert uri.startswith("file://"), uri
    return Path(unquote(urlsplit(uri).path))


@pytest.mark.parametrize(
    "name", [n for n in FIXTURE_DIRS if (fixture(n) / "expected.txt").is_file()]
)
def test_fixture_sarif_reports_the_expected_findings(logs: dict[str, dict], name: str):
    folder = fixture(name)
    run = logs[f"fixture:{name}"]["runs"][0]
    seen = []
    for result in run["results"]:
        primary = result["locations"][0]["physicalLocation"]
        path = _artifact_path(run, primary).relative_to(folder.resolve()).as_posix()
        member = result.get("properties", {}).get("member")
        seen.append(f"{result['ruleId']} {path}:{primary['region']['startLine']} {member}")
        prints = result["partialFingerprints"]
        assert set(prints) == {"primaryLocationLineHash", "pdlintLogicalFingerprint/v1"}
        for related in result.get("relatedLocations", []):
            assert _artifact_path(run, related["physicalLocation"]).is_file()
        if result["ruleId"].startswith("PDL1"):  # a relay finding: its path
            (flow,) = result["codeFlows"][0]["threadFlows"]
            steps = [step["location"] for step in flow["locations"]]
            assert steps[0]["message"]["text"].startswith("entry point")
            assert steps[-1]["physicalLocation"] == primary
            assert all(step["message"]["text"] for step in steps)
    expected = [line for line in (folder / "expected.txt").read_text().splitlines() if line]
    assert sorted(seen) == sorted(expected)
    # Every result is its own alert: no two share a fingerprint.
    logical = [r["partialFingerprints"]["pdlintLogicalFingerprint/v1"] for r in run["results"]]
    assert len(set(logical)) == len(logical)


def test_uris_are_relative_to_the_repository_root(logs: dict[str, dict]):
    run = logs["repository-subdir"]["runs"][0]
    root = Path(unquote(urlsplit(run["originalUriBaseIds"]["%SRCROOT%"]["uri"]).path))
    toplevel = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"],
        cwd=_artifact_path(run, run["results"][0]["locations"][0]["physicalLocation"]).parent,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert root == Path(toplevel).resolve()
    uris = {
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
        for r in run["results"]
    }
    assert uris == {
        ("PDL001", "service/relay_gap_engine/spec_info.py"),
        ("PDL101", "service/relay_gap_engine/spec_utils.py"),
        ("PDL900", "service/relay_gap_engine/broken%20%C3%A9.py"),
    }


def test_file_outside_the_root_gets_an_absolute_uri(tmp_path: Path):
    inside, outside = tmp_path / "repo", tmp_path / "elsewhere"
    inside.mkdir()
    (outside / "pkg").mkdir(parents=True)
    (outside / "pkg" / "x.py").write_text("x = 1\n", encoding="utf-8")
    finding = Finding("PDL900", "cannot parse", loc("../elsewhere/pkg/x.py", 1, 1, 1, 2))
    log = to_sarif([finding], root=inside, cwd=inside, sources=None, version="0")
    result = log["runs"][0]["results"][0]
    artifact = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact == {"uri": (outside / "pkg" / "x.py").resolve().as_uri()}
    assert result["partialFingerprints"]["primaryLocationLineHash"] == line_hashes("x = 1\n")[0]


@pytest.mark.parametrize(
    ("category", "automation_id"),
    [("", "pdlint/"), ("backend", "backend/"), ("backend/", "backend/"), ("a/b", "a/b/")],
)
def test_sarif_category_sets_the_automation_id(relay_gap: Path, category: str, automation_id: str):
    args = ("--sarif-category", category) if category else ()
    log = _cli_sarif(relay_gap, *args, ".")
    assert log["runs"][0]["automationDetails"] == {"id": automation_id}
