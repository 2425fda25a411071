"""Run pdlint as ``python -m pdlint``."""

from pdlint.cli import main

main()
