"""Bad input files: each gets a clear finding or warning, and the run goes on.

Every test adds one bad file to a copy of fixtures/relay/relay_gap and runs the
command line (in process with click's CliRunner for bad contents, as a process
for what the file system does: unreadable files, links, FIFOs, sockets): the
bad file gets a PDL900 finding (it cannot be read, decoded or
parsed) or a warning on stderr (a walk skips what is not a regular file), the
relay gap in the good files is still found, and the exit code is the README's:
1 when anything is reported, warnings alone do not count.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from pathlib import Path

import pytest
from pdlint_helpers import CONSUMER, GAP_PDL001, GAP_PDL101, invoke, run_pdlint

import pdlint.api

PKG = "relay_gap_engine"


def pdl900(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if " PDL900 " in line]


def assert_gap_found(stdout: str) -> None:
    lines = stdout.splitlines()
    assert sum(line.startswith(GAP_PDL001) for line in lines) == 1, stdout
    assert sum(line.startswith(GAP_PDL101) for line in lines) == 1, stdout


# the run's last line on stderr: the gap's PDL001 (a note) and PDL101, and one PDL900
SUMMARY = "Found 3 findings (2 errors).\n"


def check_with(relay_gap: Path, name: str, data: bytes) -> tuple[list[str], str]:
    """Add ``PKG/name`` with ``data``; run; PDL900 lines and stderr (exit 1)."""
    (relay_gap / PKG / name).write_bytes(data)
    res = invoke("check", ".", cwd=relay_gap)
    assert res.returncode == 1, res.stderr
    assert_gap_found(res.stdout)
    assert "Traceback" not in res.stderr
    return pdl900(res.stdout), res.stderr


# --- encodings ---------------------------------------------------------------------


def test_not_utf8_is_reported_at_the_bad_byte(relay_gap):
    errors, stderr = check_with(relay_gap, "legacy.py", b'A = 1\nB = "na\xefve"\n')

    assert errors == [
        f"{PKG}/legacy.py:2:8: PDL900 cannot decode: byte 0xef is not valid utf-8 "
        "(invalid continuation byte); no coding cookie declares another encoding (PEP 263)"
    ]
    assert stderr == SUMMARY


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            b"#!/usr/bin/env python\n# -*- coding: klingon -*-\nA = 1\n",
            "2:1: PDL900 cannot decode: unknown encoding: klingon",
        ),
        (
            b'# coding: ascii\nA = 1\nB = "caf\xc3\xa9"\n',
            "3:9: PDL900 cannot decode: byte 0xc3 is not valid ascii (ordinal not in "
            "range(128)); the coding cookie declares ascii",
        ),
        (
            b"\xef\xbb\xbf# coding: latin-1\nA = 1\n",
            "1:1: PDL900 cannot decode: a UTF-8 byte-order mark and a coding cookie for 'latin-1'",
        ),
    ],
    ids=["unknown-encoding", "cookie-does-not-match", "bom-and-other-cookie"],
)
def test_coding_cookie_problems(relay_gap, data, expected):
    errors, stderr = check_with(relay_gap, "legacy.py", data)

    assert errors == [f"{PKG}/legacy.py:{expected}"]
    assert stderr == SUMMARY


def test_file_in_another_encoding_with_its_cookie_is_analysed(relay_gap):
    # The consumer re-encoded as cp1252 with a cookie and non-ASCII text: the
    # finding stays at its line (one lower, for the cookie) and character column.
    consumer = relay_gap / CONSUMER
    text = consumer.read_text().replace(
        "batch.draft_input.prepare(batch)", "batch.draft_input.prepare(batch)  # “draft” état"
    )
    consumer.write_bytes(b"# -*- coding: cp1252 -*-\n" + text.encode("cp1252"))

    res = invoke("check", ".", cwd=relay_gap)

    assert res.returncode == 1
    assert f"{CONSUMER.as_posix()}:21:9: PDL101 DFLASH" in res.stdout
    assert pdl900(res.stdout) == []


def test_utf8_bom_keeps_lines_and_columns(relay_gap):
    consumer = relay_gap / CONSUMER
    consumer.write_bytes(b"\xef\xbb\xbf" + consumer.read_bytes())

    res = invoke("check", ".", cwd=relay_gap)

    assert res.returncode == 1
    assert_gap_found(res.stdout)
    assert pdl900(res.stdout) == []


def test_nul_bytes(relay_gap):
    errors, _ = check_with(relay_gap, "zeros.py", b"A = 1\nB = 2\x00\n")

    assert len(errors) == 1
    assert errors[0].startswith(f"{PKG}/zeros.py:")
    assert "null bytes" in errors[0]


# --- line ends ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "convert",
    [
        lambda text: text.replace("\n", "\r\n"),
        lambda text: "".join(
            line + ("\r\n", "\n", "\r")[i % 3] for i, line in enumerate(text.split("\n")[:-1])
        ),
        # Form feed and U+2028 are line breaks to str.splitlines, not to Python.
        lambda text: text.replace('"""Per-algorithm', '"""\x0cPer-algorithm\u2028'),
    ],
    ids=["crlf", "mixed-crlf-lf-cr", "form-feed-and-line-separator"],
)
def test_line_ends_keep_lines_noqa_and_the_source_shown(relay_gap, convert):
    consumer = relay_gap / CONSUMER
    text = consumer.read_text()
    consumer.write_bytes(convert(text).encode("utf-8"))

    res = invoke("check", ".", "--output-format", "full", cwd=relay_gap)

    assert res.returncode == 1
    assert f"{CONSUMER.as_posix()}:20:9: PDL101 DFLASH" in res.stdout
    assert "   20 |         batch.draft_input.prepare(batch)" in res.stdout

    lines = convert(text).encode("utf-8").split(b"batch.draft_input.prepare(batch)")
    consumer.write_bytes(lines[0] + b"batch.draft_input.prepare(batch)  # noqa: PDL101" + lines[1])
    res = invoke("check", ".", cwd=relay_gap)
    assert " PDL101 " not in res.stdout


def test_empty_file(relay_gap):
    errors, stderr = check_with(relay_gap, "empty.py", b"")

    assert errors == [] and stderr == "Found 2 findings (1 error).\n"


def test_keywords_named_like_expression_kinds(relay_gap):
    # keyword arguments named ``attr``, ``call`` or ``name`` in a guard over a list
    # grown under a role-local condition once crashed the walk over expressions
    source = (
        b"def enabled(**kw):\n    return bool(kw)\n\n\n"
        b"def is_draft():\n    return True\n\n\n"
        b"class Pool:\n    def __init__(self, ptrs):\n        self.kv_ptrs = []\n"
        b"        if enabled(attr=1, call=2, name=3) and is_draft():\n"
        b"            self.kv_ptrs.append(ptrs[0])\n"
    )
    errors, stderr = check_with(relay_gap, "pool.py", source)

    assert errors == [] and "internal error" not in stderr


# --- things that are not regular files ----------------------------------------------


def test_a_directory_named_like_a_module_is_walked(relay_gap):
    folder = relay_gap / PKG / "plugins.py"
    folder.mkdir()
    (folder / "broken.py").write_text("def (\n")

    res = run_pdlint("check", ".", cwd=relay_gap)

    assert res.returncode == 1
    assert_gap_found(res.stdout)
    assert [e.split(":")[0] for e in pdl900(res.stdout)] == [f"{PKG}/plugins.py/broken.py"]
    assert res.stderr == SUMMARY


def test_a_file_that_cannot_be_read(relay_gap):
    # Root reads any file whatever its mode, so the unreadable file is one whose
    # read fails for everyone: /proc/self/mem at offset 0 (EIO).
    if not os.path.exists("/proc/self/mem"):
        pytest.skip("needs Linux /proc (CI runs on Linux)")
    (relay_gap / PKG / "memory.py").symlink_to("/proc/self/mem")

    res = run_pdlint("check", ".", cwd=relay_gap)

    assert res.returncode == 1
    assert_gap_found(res.stdout)
    assert pdl900(res.stdout) == [f"{PKG}/memory.py:1:1: PDL900 cannot read: Input/output error"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files of mode 000")
def test_a_file_without_read_permission(relay_gap):
    path = relay_gap / PKG / "secret.py"
    path.write_text("A = 1\n")
    path.chmod(0)
    try:
        res = run_pdlint("check", ".", cwd=relay_gap)
    finally:
        path.chmod(0o644)

    assert res.returncode == 1
    assert_gap_found(res.stdout)
    assert pdl900(res.stdout) == [f"{PKG}/secret.py:1:1: PDL900 cannot read: Permission denied"]


def test_a_symlink_loop_is_skipped_with_a_warning(relay_gap):
    pkg = relay_gap / PKG
    (pkg / "loop_a.py").symlink_to("loop_b.py")
    (pkg / "loop_b.py").symlink_to("loop_a.py")
    (pkg / "dangling.py").symlink_to("nowhere.py")
    (pkg / "up").symlink_to("..", target_is_directory=True)  # a directory loop

    res = run_pdlint("check", ".", cwd=relay_gap)

    assert res.returncode == 1
    assert_gap_found(res.stdout)
    assert pdl900(res.stdout) == []
    assert res.stderr.splitlines() == [
        f"pdlint: warning: {PKG}/dangling.py: broken symbolic link, skipped",
        f"pdlint: warning: {PKG}/loop_a.py: symbolic link loop, skipped",
        f"pdlint: warning: {PKG}/loop_b.py: symbolic link loop, skipped",
        "Found 2 findings (1 error).",
    ]


def test_a_symlink_loop_named_on_the_command_line(tmp_path):
    (tmp_path / "a.py").symlink_to("b.py")
    (tmp_path / "b.py").symlink_to("a.py")

    res = run_pdlint("check", "a.py", cwd=tmp_path)

    assert (res.returncode, res.stdout) == (0, "")
    assert res.stderr == (
        "pdlint: warning: a.py: symbolic link loop, skipped\n"
        "pdlint: warning: No Python files found under the given path(s)\n"
        "All checks passed!\n"
    )


def test_a_fifo_and_a_socket_in_the_tree_are_skipped(relay_gap):
    pkg = relay_gap / PKG
    os.mkfifo(pkg / "pipe.py")  # reading it would block the run forever
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(pkg / "sock.py"))
        res = run_pdlint("check", ".", cwd=relay_gap)
    finally:
        server.close()

    assert res.returncode == 1
    assert_gap_found(res.stdout)
    assert res.stderr.splitlines() == [
        f"pdlint: warning: {PKG}/pipe.py: a FIFO, not a regular file, skipped",
        f"pdlint: warning: {PKG}/sock.py: a socket, not a regular file, skipped",
        "Found 2 findings (1 error).",
    ]


@pytest.mark.parametrize("fmt", ["concise", "full", "sarif"])
def test_a_fifo_named_on_the_command_line_is_read_once(tmp_path, fmt):
    fifo = tmp_path / "piped.py"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "w") as out:
            out.write("def (\n")

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    # A second read (the parser quoting the line, noqa, a SARIF line hash)
    # would wait for a writer forever.
    res = run_pdlint("check", "piped.py", "--output-format", fmt, cwd=tmp_path)
    writer.join(timeout=10)

    assert res.returncode == 1
    assert "piped.py" in res.stdout and "PDL900" in res.stdout


def test_a_file_deleted_between_discovery_and_parsing(relay_gap, monkeypatch):
    doomed = relay_gap / PKG / "doomed.py"
    doomed.write_text("A = 1\n")
    discover = pdlint.api.discover

    def discover_then_delete(*args, **kwargs):
        found = discover(*args, **kwargs)
        assert any(f.path.endswith("doomed.py") for f in found[0])
        doomed.unlink()
        return found

    monkeypatch.setattr(pdlint.api, "discover", discover_then_delete)
    res = invoke("check", ".", cwd=relay_gap)

    assert res.returncode == 1
    assert_gap_found(res.stdout)
    assert pdl900(res.stdout) == [
        f"{PKG}/doomed.py:1:1: PDL900 cannot read: No such file or directory"
    ]


# --- syntax of other Pythons ---------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ('print "hello"\n', "Missing parentheses in call to 'print'"),
        ("A = `1`\n", "syntax error: invalid syntax"),
        ("MODE = 0755\n", "syntax error: leading zeros in decimal integer literals"),
        ('exec "A = 1"\n', "Missing parentheses in call to 'exec'"),
        ('NAME = ur"raw"\n', "syntax error: invalid syntax"),
    ],
    ids=["print", "backticks", "octal", "exec", "ur-prefix"],
)
def test_python2_syntax(relay_gap, source, message):
    errors, stderr = check_with(relay_gap, "legacy2.py", source.encode())

    assert len(errors) == 1
    assert errors[0].startswith(f"{PKG}/legacy2.py:1:")
    assert message in errors[0]
    assert "newer Python" not in errors[0]
    assert stderr == SUMMARY


@pytest.mark.skipif(sys.version_info >= (3, 14), reason="valid syntax since Python 3.14")
def test_python2_except_comma_is_python_314_syntax(relay_gap):
    # `except E, name:` parses again in Python 3.14 (PEP 758: a tuple of two
    # exception types), so the hint is right, if surprising for Python 2 code.
    source = b"try:\n    pass\nexcept ValueError, exc:\n    pass\n"
    errors, _ = check_with(relay_gap, "legacy2.py", source)

    assert len(errors) == 1
    assert errors[0].startswith(f"{PKG}/legacy2.py:3:")
    assert errors[0].endswith("run pdlint on it there)")


NEWER = {
    "type-alias": "A = 1\ntype Vector = list[float]\n",
    "generic-function": "A = 1\ndef first[T](items: list[T]) -> T:\n    return items[0]\n",
    "generic-class": "A = 1\nclass Box[T]:\n    def get(self) -> T: ...\n",
    "nested-quotes-in-f-string": 'NAME = {"a": 1}\nTEXT = f"{NAME["a"]}"\n',
}


@pytest.mark.parametrize("name", sorted(NEWER))
def test_syntax_of_a_newer_python(relay_gap, name):
    (relay_gap / PKG / "modern.py").write_text(NEWER[name])

    res = invoke("check", ".", cwd=relay_gap)

    assert res.returncode == 1
    assert_gap_found(res.stdout)
    errors = pdl900(res.stdout)
    if sys.version_info >= (3, 12):  # valid here: analysed like any file
        assert errors == []
        return
    running = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert len(errors) == 1
    assert errors[0].startswith(f"{PKG}/modern.py:2:")
    assert errors[0].endswith(f"(valid in a newer Python than {running}; run pdlint on it there)")


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the statement is valid here")
def test_syntax_of_a_newer_python_without_libcst(relay_gap, monkeypatch):
    """Without libcst (a dependency, but an install may lack it): the same PDL900, no hint."""
    monkeypatch.setitem(sys.modules, "libcst", None)  # import libcst raises ImportError
    (relay_gap / PKG / "modern.py").write_text(NEWER["type-alias"])

    res = invoke("check", ".", "--no-cache", cwd=relay_gap)

    assert res.returncode == 1
    assert_gap_found(res.stdout)
    assert pdl900(res.stdout) == [f"{PKG}/modern.py:2:6: PDL900 syntax error: invalid syntax"]


def test_a_syntax_error_after_a_megabyte_of_code(relay_gap):
    # The newer-Python hint reads up to the error; it gives up past a budget.
    data = b"A = 1\n" * 170_000 + b"type X = int\n"
    assert len(data) > 1_000_000
    start = time.monotonic()
    errors, stderr = check_with(relay_gap, "big.py", data)

    assert time.monotonic() - start < 30
    assert len(errors) == 1
    assert errors[0].startswith(f"{PKG}/big.py:170001:6: PDL900 syntax error: invalid syntax")
    assert stderr == SUMMARY


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the statement is valid here")
def test_newer_syntax_after_lone_carriage_returns(relay_gap):
    # The parser breaks lines at a lone \r; the hint must find the same line.
    errors, _ = check_with(relay_gap, "modern.py", b"A = 1\rB = (\r  2)\rtype X = int\r")

    assert len(errors) == 1
    assert errors[0].startswith(f"{PKG}/modern.py:4:6: PDL900 syntax error: invalid syntax")
    assert errors[0].endswith("run pdlint on it there)")
