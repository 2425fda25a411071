"""action.yml and the README's workflows, checked by SchemaStore's schemas, and the
action's own steps run as a runner runs them (bash, step env, ``$GITHUB_OUTPUT``).

The module installs pdlint once through the action's install step (a fresh
venv and ``pip install`` of this repository, about 15 to 40 s).
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from github_assets import action_schema_path, load_yaml, workflow_schema_path
from pdlint_helpers import REPO, fixture
from sarif_assets import AssetUnavailable, schema_path

ACTION = REPO / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*([\w.-]+)\s*\}\}")


def action() -> dict[str, Any]:
    return load_yaml(ACTION.read_text(encoding="utf-8"))


def steps_by_id(metadata: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {step["id"]: step for step in metadata["runs"]["steps"] if "id" in step}


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must run this check: see .ci/run)")
    pytest.skip(reason)


def schema_errors(document: Any, path_of_schema: Any) -> list[str]:
    import jsonschema

    try:
        schema = json.loads(path_of_schema().read_text(encoding="utf-8"))
    except AssetUnavailable as exc:
        _unavailable(f"schema unavailable: {exc}")
    validator_class = jsonschema.validators.validator_for(schema)
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    return [f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors]


# --- the metadata --------------------------------------------------------------


def test_action_metadata_validates_against_schemastore():
    assert schema_errors(action(), action_schema_path) == []
    broken = action()
    broken["inputs"]["paths"]["defualt"] = "."
    broken["runs"]["steps"][1].pop("shell")
    assert schema_errors(broken, action_schema_path)  # not vacuous


def test_action_is_composite_installs_itself_runs_sarif_and_uploads():
    metadata = action()
    assert metadata["runs"]["using"] == "composite"
    steps = metadata["runs"]["steps"]
    by_id = steps_by_id(metadata)
    assert by_id["install"]["env"]["PDLINT_SOURCE"] == "${{ github.action_path }}"
    assert "$PDLINT_SOURCE" in by_id["install"]["run"]
    run_script = by_id["run"]["run"]
    assert '"$PDLINT" check --output-format sarif' in run_script
    (upload,) = [s for s in steps if s.get("uses", "").startswith("github/codeql-action/")]
    assert upload["uses"] == "github/codeql-action/upload-sarif@v3"
    assert upload["with"]["sarif_file"] == "${{ steps.run.outputs.sarif-file }}"
    assert upload["with"]["category"] == "${{ inputs.category }}"
    assert upload["if"] == "inputs.upload == 'true'"
    assert steps.index(by_id["run"]) < steps.index(upload)
    assert set(metadata["inputs"]) >= {"paths", "args", "python-version", "upload", "category"}


def test_no_expression_is_pasted_into_a_script():
    # Inputs reach the scripts through env only (no script injection), and
    # every expression names a declared input or an earlier step's output.
    metadata = action()
    by_id = steps_by_id(metadata)
    for step in metadata["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), step["name"]
    text = ACTION.read_text(encoding="utf-8")
    for name in EXPRESSION.findall(text):
        parts = name.split(".")
        if parts[0] == "inputs":
            assert parts[1] in metadata["inputs"], name
        elif parts[0] == "steps":
            assert parts[1] in by_id and parts[2] == "outputs", name
            assert f"{parts[3]}=" in by_id[parts[1]]["run"], name
        else:
            assert name in {"github.action_path"}, name


# --- the README's workflows and pre-commit config ----------------------------


def readme_blocks(language: str) -> list[str]:
    """The ``language`` code blocks of the README's GitHub code scanning section."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## GitHub code scanning\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(rf"```{language}\n(.*?)```", section, flags=re.S)


def test_readme_workflow_validates_and_uses_the_actions_inputs():
    workflows = [load_yaml(b) for b in readme_blocks("yaml") if "\njobs:" in b]
    assert workflows
    inputs = set(action()["inputs"])
    uses_pdlint = 0
    for workflow in workflows:
        assert schema_errors(workflow, workflow_schema_path) == []
        for job in workflow["jobs"].values():
            for step in job["steps"]:
                if step.get("uses", "").startswith("pdlint/pdlint@"):
                    uses_pdlint += 1
                    assert set(step.get("with", {})) <= inputs
                    assert workflow["permissions"]["security-events"] == "write"
    assert uses_pdlint == 1
    broken = copy.deepcopy(workflows[0])
    broken["jobs"]["pdlint"]["runs_on"] = broken["jobs"]["pdlint"].pop("runs-on")
    assert schema_errors(broken, workflow_schema_path)  # not vacuous


# --- the steps, run as the runner runs them ------------------------------------


def run_step(
    step: dict[str, Any],
    contexts: dict[str, Any],
    cwd: Path,
    runner_temp: Path,
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """Run a ``shell: bash`` step: GitHub's bash flags, the step's env with its
    expressions resolved from ``contexts``; returns the process and its outputs."""

    def resolve(value: str) -> str:
        def lookup(match: re.Match[str]) -> str:
            node: Any = contexts
            for part in match.group(1).split("."):
                node = node[part]
            return str(node)

        return EXPRESSION.sub(lookup, value)

    assert step["shell"] == "bash"
    script = runner_temp / "step.sh"
    script.write_text(step["run"], encoding="utf-8")
    output = runner_temp / "github_output"
    output.write_text("", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in {"VIRTUAL_ENV", "PYTHONPATH"}}
    env.update(RUNNER_TEMP=str(runner_temp), GITHUB_OUTPUT=str(output))
    env.update({key: resolve(str(value)) for key, value in step.get("env", {}).items()})
    workdir = cwd / resolve(step.get("working-directory", "."))
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    outputs = dict(
        line.split("=", 1) for line in output.read_text(encoding="utf-8").splitlines() if line
    )
    return proc, outputs


def defaults() -> dict[str, str]:
    return {name: str(spec.get("default", "")) for name, spec in action()["inputs"].items()}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Outputs of the action's install step, run against this repository."""
    runner_temp = tmp_path_factory.mktemp("runner-temp")
    contexts = {"inputs": defaults(), "github": {"action_path": str(REPO)}}
    proc, outputs = run_step(steps_by_id(action())["install"], contexts, REPO, runner_temp)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert re.search(r"pdlint, version \S+", proc.stdout)
    assert Path(outputs["pdlint"]).is_file() and Path(outputs["python"]).is_file()
    assert Path(outputs["pdlint"]).parent.parent == runner_temp / "pdlint-venv"
    return outputs


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A checked-out repository whose ``service`` folder holds relay_gap."""
    repo = tmp_path / "workspace"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=60)
    shutil.copytree(fixture("relay_gap"), repo / "service")
    return repo


def run_pdlint_step(
    installed: dict[str, str], workspace: Path, tmp_path: Path, **inputs: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    contexts = {
        "inputs": {**defaults(), **inputs},
        "steps": {"install": {"outputs": installed}},
    }
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    return run_step(steps_by_id(action())["run"], contexts, workspace, runner_temp)


def test_run_step_writes_sarif_and_does_not_fail_on_findings(
    installed: dict[str, str], workspace: Path, tmp_path: Path
):
    proc, outputs = run_pdlint_step(
        installed, workspace, tmp_path, **{"working-directory": "service", "category": "serving"}
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (outputs["exit-code"], outputs["findings"]) == ("1", "2")
    sarif = Path(outputs["sarif-file"])
    assert sarif == tmp_path / "runner-temp" / "pdlint.output.sarif"
    log = json.loads(sarif.read_text(encoding="utf-8"))
    assert schema_errors(log, schema_path) == []
    run = log["runs"][0]
    assert run["automationDetails"] == {"id": "serving/"}
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]
    ]
    assert uris == [
        "service/relay_gap_engine/spec_info.py",
        "service/relay_gap_engine/spec_utils.py",
    ]
    assert "pdlint: 2 finding(s)" in proc.stdout


def test_run_step_passes_quoted_args_and_paths(
    installed: dict[str, str], workspace: Path, tmp_path: Path
):
    (workspace / "service").rename(workspace / "my service")
    proc, outputs = run_pdlint_step(
        installed,
        workspace,
        tmp_path,
        paths="'my service'",
        args="--select 'PDL101'",
        **{"sarif-file": "out/pdlint.output.sarif"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (outputs["exit-code"], outputs["findings"]) == ("1", "1")
    assert Path(outputs["sarif-file"]) == workspace / "out" / "pdlint.output.sarif"
    (result,) = json.loads(Path(outputs["sarif-file"]).read_text())["runs"][0]["results"]
    assert result["ruleId"] == "PDL101"


def test_run_step_exits_zero_with_no_findings(
    installed: dict[str, str], workspace: Path, tmp_path: Path
):
    shutil.copytree(fixture("relay_fixed"), workspace / "fixed")
    proc, outputs = run_pdlint_step(installed, workspace, tmp_path, paths="fixed")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (outputs["exit-code"], outputs["findings"]) == ("0", "0")


def test_run_step_exits_zero_with_notes_alone_so_fail_on_findings_agrees(
    installed: dict[str, str], workspace: Path, tmp_path: Path
):
    # the documented fix keeps its PDL001 note: uploaded, but the job does not fail
    shutil.copytree(fixture("startup_validator"), workspace / "validated")
    proc, outputs = run_pdlint_step(installed, workspace, tmp_path, paths="validated")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (outputs["exit-code"], outputs["findings"]) == ("0", "1")
    (result,) = json.loads(Path(outputs["sarif-file"]).read_text())["runs"][0]["results"]
    assert (result["ruleId"], result["level"]) == ("PDL001", "note")


def test_run_step_fails_on_a_usage_error_before_the_upload(
    installed: dict[str, str], workspace: Path, tmp_path: Path
):
    proc, outputs = run_pdlint_step(installed, workspace, tmp_path, paths="no-such-folder")
    assert proc.returncode == 2
    assert outputs["exit-code"] == "2"
    assert "findings" not in outputs
    assert "::error title=pdlint::pdlint check exited with 2" in proc.stdout
    assert "no-such-folder" in proc.stderr


def test_fail_on_findings_step(tmp_path: Path):
    (step,) = [s for s in action()["runs"]["steps"] if s["name"] == "Fail on findings"]
    assert step["if"] == "inputs.fail-on-findings == 'true' && steps.run.outputs.exit-code == '1'"
    contexts = {"steps": {"run": {"outputs": {"findings": "3"}}}}
    proc, _ = run_step(step, contexts, tmp_path, tmp_path)
    assert proc.returncode == 1
    assert "::error title=pdlint::pdlint reported 3 finding(s)" in proc.stdout
