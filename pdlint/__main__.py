"""Run pdlint as ``python -m pdlint``."""

import os
import sys


def _drop_current_directory() -> None:
    """Remove the current directory that ``python -m`` puts first on ``sys.path``.

    Run inside an analysed project, it would let a file there named like a
    module pdlint imports later (``dataclasses.py``, ``json.py``) run instead.
    Only that first entry goes: the same folder further on came from elsewhere
    (an editable install of pdlint run in its own checkout).
    """
    if getattr(sys.flags, "safe_path", False) or not sys.path:  # python -P
        return
    try:
        here = os.path.realpath(os.getcwd())
    except OSError:
        return
    if sys.path[0] in ("", ".") or os.path.realpath(sys.path[0]) == here:
        del sys.path[0]


_drop_current_directory()

from pdlint.cli import main  # noqa: E402

if __name__ == "__main__":  # not in a worker process started by "spawn"
    main()
