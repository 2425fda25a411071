#!/usr/bin/env python3
"""Run pdlint's fuzz tests (tests/reliability/test_fuzz.py) with the long profile.

    python scripts/fuzz.py                 # 5,000 examples per generator
    python scripts/fuzz.py --examples 800 --seed 1234 -x

CI runs the same tests with 300 examples; this profile took 21 minutes on two
busy cores (the libcst-node generator runs a fifteenth of the examples, as in
CI). Extra arguments go to pytest; the exit code is pytest's.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=5000, help="examples per generator")
    parser.add_argument("--seed", type=int, default=None, help="hypothesis seed (random if unset)")
    args, rest = parser.parse_known_args(argv)
    command = [
        sys.executable,
        "-m",
        "pytest",
        str(REPO / "tests" / "reliability" / "test_fuzz.py"),
        "-p",
        "no:cacheprovider",
        "--durations=0",
        "-q",
        *(["--hypothesis-seed", str(args.seed)] if args.seed is not None else []),
        *rest,
    ]
    env = {**os.environ, "PDLINT_FUZZ_EXAMPLES": str(args.examples)}
    start = time.monotonic()
    code = subprocess.run(command, cwd=REPO, env=env, check=False).returncode
    print(
        f"fuzz: {args.examples} examples per generator, {time.monotonic() - start:.0f} s, "
        f"pytest exit {code}",
        file=sys.stderr,
    )
    return code


if __name__ == "__main__":
    sys.exit(main())
