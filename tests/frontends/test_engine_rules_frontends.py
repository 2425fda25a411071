"""PDL107, PDL108 and PDL301 through the front ends users run: ``pdlint rule``, flake8
(its format and its ``noqa``) and the language server (code, severity, the rule's
page), on the fixtures that show them."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pdlint_helpers import fixture, run_pdlint
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from pdlint.checks.catalogue import RULES

NEW_CODES = ("PDL107", "PDL108", "PDL301")


@pytest.mark.parametrize("code", NEW_CODES)
def test_rule_explains_each_code(tmp_path: Path, code: str) -> None:
    res = run_pdlint("rule", code, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert RULES[code].name in res.stdout and RULES[code].example.splitlines()[0] in res.stdout


@pytest.fixture
def engines(tmp_path: Path) -> Path:
    """The PDL107, PDL108 and PDL301 fixtures side by side."""
    for name in ("lookahead_guard", "dead_enum_branch", "soft_handoff"):
        shutil.copytree(fixture(name), tmp_path / "engines" / name, ignore=_expected)
    return tmp_path / "engines"


def _expected(folder: str, names: list[str]) -> list[str]:
    return [n for n in names if n in ("expected.txt", "README.md")]


def flake8(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PDLINT_CACHE_DIR"}
    command = [sys.executable, "-m", "flake8", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_flake8_prints_and_silences_the_new_codes(engines: Path) -> None:
    pdlint = run_pdlint("check", ".", cwd=engines)
    assert pdlint.returncode == 1, pdlint.stderr
    expected = ["./" + line for line in pdlint.stdout.splitlines()]
    assert sorted(line.split(": ")[1].split()[0] for line in expected) == sorted(NEW_CODES)
    proc = flake8("--select", "PDL", "--jobs", "1", ".", cwd=engines)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines() == expected
    scheduler = engines / "lookahead_guard/slot_engine/scheduler.py"
    lines = scheduler.read_text().splitlines(keepends=True)
    lines[46] = lines[46].rstrip("\n") + "  # noqa: PDL107\n"
    scheduler.write_text("".join(lines))
    proc = flake8("--select", "PDL", "--jobs", "1", ".", cwd=engines)
    assert [line.split(": ")[1].split()[0] for line in proc.stdout.splitlines()] == [
        "PDL108",
        "PDL301",
    ]


SERVER = [sys.executable, "-m", "pdlint", "server"]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient, engines: Path):  # type: ignore[no-untyped-def]
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=client_capabilities("visual-studio-code"),
            root_uri=engines.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=engines.as_uri(), name="engines")],
        )
    )
    yield
    server = lsp_client._server
    if server is not None and server.returncode is None:
        try:
            await asyncio.wait_for(lsp_client.shutdown_session(), 10)
        except Exception:
            server.kill()


@pytest.mark.asyncio
async def test_the_language_server_publishes_the_new_codes(
    client: LanguageClient, engines: Path
) -> None:
    wanted = {
        "lookahead_guard/slot_engine/scheduler.py": ("PDL107", types.DiagnosticSeverity.Error, 46),
        "dead_enum_branch/enum_engine/loop.py": ("PDL108", types.DiagnosticSeverity.Warning, 8),
        "soft_handoff/relay_worker/handler.py": ("PDL301", types.DiagnosticSeverity.Warning, 19),
    }
    for rel, (code, severity, line) in wanted.items():
        path = engines / rel
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(
                    uri=path.as_uri(), language_id="python", version=1, text=path.read_text()
                )
            )
        )
        deadline = asyncio.get_running_loop().time() + 60
        while path.as_uri() not in client.diagnostics:
            assert asyncio.get_running_loop().time() < deadline, f"no diagnostics for {rel}"
            await asyncio.sleep(0.02)
        [diagnostic] = client.diagnostics[path.as_uri()]
        assert (diagnostic.code, diagnostic.severity, diagnostic.range.start.line) == (
            code,
            severity,
            line,
        )
        assert diagnostic.code_description == types.CodeDescription(href=RULES[code].help_uri)
        assert diagnostic.related_information  # the path that explains it
