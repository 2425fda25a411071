"""PDL301 when the handler passes the payload to no call: it only takes a value out
of it (``payload["key"]``, ``payload.get(key, {})``) under a test that it is there,
into a local that holds a default otherwise, and goes on with the default. A local
with no default (unbound without the payload) or a raise on the other path is not
"going on without it"."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pdlint_helpers import json_findings

HANDLER = """\
class DecodeHandler:
    def handle(self, request):
        PREFIX
        payload = request.get("prefill_result")
        if payload is not None:
            TAKE
        OTHERWISE
        return knobs
"""


def _write(tmp_path: Path, prefix: str, take: str, otherwise: str) -> Path:
    pkg = tmp_path / "knobworker"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    source = HANDLER.replace("PREFIX", prefix).replace("TAKE", take)
    (pkg / "handler.py").write_text(source.replace("OTHERWISE", otherwise))
    return pkg


def _findings(tmp_path: Path, prefix: str, take: str, otherwise: str) -> list[tuple]:
    _write(tmp_path, prefix, take, otherwise)
    entry = "knobworker.handler.DecodeHandler.handle"
    found = json_findings("knobworker", "--no-cache", "--entry-point", entry, cwd=tmp_path)
    return [(f["code"], f["location"]["row"], f["member"]) for f in found]


@pytest.mark.parametrize(
    ("prefix", "take", "otherwise"),
    [
        ("knobs = None", 'knobs = payload["knobs"]', ""),
        ("pass", 'knobs = payload.get("knobs", {})', "else:\n            knobs = {}"),
    ],
    ids=["default-before", "default-in-else"],
)
def test_a_value_taken_only_when_the_payload_is_there(
    tmp_path: Path, prefix: str, take: str, otherwise: str
) -> None:
    assert _findings(tmp_path, prefix, take, otherwise) == [("PDL301", 4, "prefill_result")]
    # and CPython goes on with the default for a request without the payload
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from knobworker.handler import DecodeHandler as H\n"
            "print(H().handle({'token_ids': [1]}))",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout.strip() in ("None", "{}"), done.stderr


@pytest.mark.parametrize(
    "otherwise",
    ["", 'else:\n            raise ValueError("decode needs prefill_result")'],
    ids=["no-default", "raises"],
)
def test_no_default_or_a_raise_is_not_going_on(tmp_path: Path, otherwise: str) -> None:
    assert _findings(tmp_path, "pass", 'knobs = payload["knobs"]', otherwise) == []


def test_a_key_read_out_of_the_payload_is_the_payloads_read(tmp_path: Path) -> None:
    # ``disaggregated_params`` is a payload key of its own, but read softly out of the
    # payload already read it is part of that read: one finding, on the payload's
    take = (
        'params = payload.get("disaggregated_params") or {}\n            knobs = payload["knobs"]'
    )
    assert _findings(tmp_path, "knobs = None", take, "") == [("PDL301", 4, "prefill_result")]


def test_the_same_key_read_off_the_request_is_reported(tmp_path: Path) -> None:
    take = 'knobs = request.get("disaggregated_params") or {}'
    assert _findings(tmp_path, "knobs = None", take, "") == [("PDL301", 6, "disaggregated_params")]
