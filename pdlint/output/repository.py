"""Repository-relative paths for GitHub, which names files from the repository root.

pdlint shows paths relative to the current directory; GitHub code scanning and
workflow annotations read them relative to the root of the checked-out
repository. These helpers find that root and rebase a path onto it.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath


def repository_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` that holds ``.git`` (a directory
    in a clone, a file in a worktree or submodule), or None outside a repository."""
    current = Path(os.path.abspath(start))
    for directory in (current, *current.parents):
        if (directory / ".git").exists():
            return directory
    return None


def rebase(path: str, cwd: Path, root: Path) -> str | None:
    """``path`` (relative to ``cwd``, or absolute) relative to ``root``, posix.

    None when the file is not below ``root``.
    """
    absolute = Path(os.path.normpath(os.path.join(os.path.abspath(cwd), path)))
    try:
        relative = absolute.relative_to(Path(os.path.abspath(root)))
    except ValueError:
        return None
    return PurePosixPath(*relative.parts).as_posix()
