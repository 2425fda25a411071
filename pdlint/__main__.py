"""Run pdlint as ``python -m pdlint``."""

import os
import sys


def _drop_current_directory() -> None:
    """Remove the current directory that ``python -m`` puts first on ``sys.path``.

    Run inside an analysed project, it would let a file there named like a
    module pdlint imports later (``dataclasses.py``, ``json.py``) run instead.
    """
    try:
        here = os.path.realpath(os.getcwd())
    except OSError:
        here = None
    sys.path[:] = [
        p for p in sys.path if p not in ("", ".") and (here is None or os.path.realpath(p) != here)
    ]


_drop_current_directory()

from pdlint.cli import main  # noqa: E402

if __name__ == "__main__":  # not in a worker process started by "spawn"
    main()
