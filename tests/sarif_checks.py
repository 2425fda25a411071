"""SARIF checks shared by the tests: validation against the OASIS schema."""

from __future__ import annotations

import json
import os

import pytest
from sarif_assets import AssetUnavailable, schema_path


def unavailable(reason: str) -> None:
    """Fail in CI (which installs the assets), skip elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must run this check: see .ci/sarif-tools.sh)")
    pytest.skip(reason)


def schema_errors(log: dict) -> list[str]:
    """Errors of ``log`` against the OASIS SARIF 2.1.0 schema, by JSON path."""
    jsonschema = pytest.importorskip("jsonschema")
    try:
        schema = json.loads(schema_path().read_text(encoding="utf-8"))
    except AssetUnavailable as exc:
        unavailable(f"OASIS SARIF schema unavailable: {exc}")
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    return [f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors]
