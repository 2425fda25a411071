"""Safety: pdlint never runs analysed code, leaks no outside paths, runs no pack.

A hostile package does its damage at import time: it writes a marker file and
connects to a socket the test listens on. Its modules are also named like what
pdlint and Python import (``dataclasses``, ``json``, ``tokenize``, ``libcst``,
``sitecustomize``...), so that ``python -m pdlint`` run inside it would pick
them up if the current directory stayed on ``sys.path``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pdlint_helpers import GAP_PDL001, GAP_PDL101, copy_relay_gap, run_pdlint

SHADOWED = [
    "dataclasses",
    "json",
    "enum",
    "typing",
    "ast",
    "tokenize",
    "io",
    "fnmatch",
    "codecs",
    "hashlib",
    "pickle",
    "tomllib",
    "multiprocessing",
    "concurrent",
    "click",
    "networkx",
    "libcst",
    "sitecustomize",
    "usercustomize",
    "conftest",
    "setup",
]


def hostile_code(marker: Path, port: int, tag: str) -> str:
    return (
        "import os, socket\n"
        f"open({str(marker)!r} + '.' + {tag!r}, 'w').write('ran')\n"
        f"socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall({tag!r}.encode())\n"
        "os.system('touch ' + os.path.expanduser('~/pdlint-hostile-ran'))\n"
    )


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A listening TCP socket that must never be connected to."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    server.setblocking(False)
    yield server
    server.close()


def connections(server: socket.socket) -> list[str]:
    out = []
    while True:
        try:
            conn, _ = server.accept()
        except BlockingIOError:
            return out
        conn.settimeout(2)
        out.append(conn.recv(100).decode(errors="replace"))
        conn.close()


def hostile_project(root: Path, marker: Path, port: int) -> Path:
    """relay_gap whose every module, and many more, act at import time."""
    copy_relay_gap(root)
    pkg = root / "relay_gap_engine"
    for path in sorted(pkg.glob("*.py")):
        path.write_text(path.read_text() + hostile_code(marker, port, path.stem))
    for name in SHADOWED:
        (root / f"{name}.py").write_text(hostile_code(marker, port, name))
    (root / "libcst").mkdir()
    (root / "libcst" / "__init__.py").write_text(hostile_code(marker, port, "libcst-pkg"))
    (root / "hostile.pth").write_text(f"import os; open({str(marker)!r}, 'w')\n")
    # A syntax error of a newer Python makes pdlint import libcst lazily.
    (pkg / "modern.py").write_text(hostile_code(marker, port, "modern") + "type X = int\n")
    return root


def console_script() -> str:
    script = Path(sys.executable).parent / "pdlint"
    found = str(script) if script.exists() else shutil.which("pdlint")
    assert found, "the pdlint console script is not installed"
    return found


@pytest.mark.parametrize("workers", ["1", "3"])
@pytest.mark.parametrize("entry", ["python -m pdlint", "pdlint script"])
def test_analysing_a_hostile_package_runs_none_of_it(tmp_path, listener, entry, workers):
    marker = tmp_path / "outside" / "MARKER"
    marker.parent.mkdir()
    root = hostile_project(tmp_path / "proj", marker, listener.getsockname()[1])
    home = tmp_path / "home"
    home.mkdir()

    env = {"PDLINT_WORKERS": workers, "HOME": str(home)}
    if entry == "python -m pdlint":
        res = run_pdlint("check", ".", "--output-format", "json", cwd=root, env=env)
    else:
        res = subprocess.run(
            [console_script(), "check", ".", "--output-format", "json"],
            cwd=root,
            capture_output=True,
            text=True,
            env={**os.environ, **env},
            timeout=120,
        )

    assert sorted(p.name for p in marker.parent.iterdir()) == []
    assert not (home / "pdlint-hostile-ran").exists()
    assert connections(listener) == []
    assert res.returncode == 1, res.stderr
    found = {(f["code"], f["filename"]) for f in json.loads(res.stdout)}
    assert ("PDL101", "relay_gap_engine/spec_utils.py") in found  # it was analysed
    assert ("PDL900", "relay_gap_engine/modern.py") in found  # libcst was consulted


def absolute_paths(text: str) -> list[str]:
    """Every absolute path (``/a/b``) or ``file:`` URI written anywhere in ``text``."""
    uris = re.findall(r"file://(/[^\s\"]+)", text)
    rest = re.sub(r"\w+://[^\s\"]+", " ", text)
    return uris + re.findall(r"(?<![\w.:/])/[\w.-]+(?:/[^\s\"'`,)\]]*)*", rest)


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_machine_output_names_no_path_outside_the_analysed_root(tmp_path, fmt):
    root = copy_relay_gap(tmp_path / "analysed" / "root")
    (root / "relay_gap_engine" / "broken.py").write_text("def (\n")
    elsewhere = tmp_path / "elsewhere" / "cwd"
    elsewhere.mkdir(parents=True)

    res = run_pdlint("check", root, "--output-format", fmt, cwd=elsewhere)

    assert res.returncode == 1, res.stderr
    found = absolute_paths(res.stdout)
    assert found, "analysed from elsewhere, the files are named by absolute paths"
    for item in found:
        assert Path(item).is_relative_to(root.resolve()), item
    assert str(elsewhere) not in res.stdout
    assert str(tmp_path / "elsewhere") not in res.stdout


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_machine_output_from_the_root_names_no_absolute_path_but_the_root(tmp_path, fmt):
    root = copy_relay_gap(tmp_path / "root")

    res = run_pdlint("check", ".", "--output-format", fmt, cwd=root)

    assert res.returncode == 1
    for item in absolute_paths(res.stdout):
        # SARIF's %SRCROOT% is the root itself; nothing else is absolute.
        assert item == root.resolve().as_posix() + "/", item


def test_a_rule_pack_is_data_only(tmp_path, listener):
    marker = tmp_path / "MARKER"
    root = copy_relay_gap(tmp_path / "proj")
    code = f"__import__('os').system('touch {marker}')"
    pack = root / "evil.toml"
    pack.write_text(
        "[pack]\n"
        f'name = "{code}"\n'
        f'description = "{{{code}}}"\n'
        'detect = ["relay_gap_engine", "os; import os"]\n'
        "\n[relay]\n"
        f'entry-points = ["*event_loop_disagg_decode", "{code}"]\n'
        f'states = ["draft_input", "exec(\\"open(\'{marker}\', \'w\')\\")"]\n'
        f'startup-validators = ["$(touch {marker})", "`touch {marker}`"]\n'
        f"placeholder-factories = [\"eval('1')\"]\n"
        f'bypass-modes = ["{code}"]\n'
    )

    res = run_pdlint("check", ".", "--packs", "evil.toml", cwd=root)

    assert res.returncode == 1, res.stderr
    lines = res.stdout.splitlines()
    assert any(line.startswith(GAP_PDL001) for line in lines)
    assert any(line.startswith(GAP_PDL101) for line in lines)
    assert "matches no analysed function" in res.stderr
    assert not marker.exists()
    assert connections(listener) == []
