"""PDL301 when the loud precondition is the caller's: a handler's helper reads the
handoff payload softly and returns what it took from it, and the handler raises in
decode mode when that value is missing (Dynamo's TensorRT-LLM handler:
``_setup_disaggregated_params_for_mode`` then ``if decode and disaggregated_params is
None: raise``). Clean; a caller testing another returned value is not."""

from __future__ import annotations

from pathlib import Path

from pdlint_helpers import json_findings

ENGINE = """\
import enum


class DisaggregationMode(enum.Enum):
    AGGREGATED = "aggregated"
    PREFILL = "prefill"
    DECODE = "decode"


def decode_transfer_params(prefill_result):
    return dict(prefill_result["transfer_params"])
"""

HANDLER = """\
from tuple_worker.engine import DisaggregationMode, decode_transfer_params


class WorkerHandler:
    def __init__(self, mode: DisaggregationMode) -> None:
        self.disaggregation_mode = mode

    def _setup_params(self, request):
        params = None
        metadata = {"tokens": len(request["token_ids"])}
        prefill_result = request.get("prefill_result")
        if prefill_result:
            params = decode_transfer_params(prefill_result)
        return params, metadata

    def generate(self, request):
        if self.disaggregation_mode == DisaggregationMode.PREFILL:
            return "prefill only"
        params, metadata = self._setup_params(request)
        if self.disaggregation_mode == DisaggregationMode.DECODE and CHECKED is None:
            raise ValueError("transfer parameters are required in decode mode")
        return f"decoded from {params} ({metadata})"
"""


def _findings(tmp_path: Path, checked: str) -> list[tuple[str, str, int, str]]:
    pkg = tmp_path / "tuple_worker"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "engine.py").write_text(ENGINE)
    (pkg / "handler.py").write_text(HANDLER.replace("CHECKED", checked))
    entry = "tuple_worker.handler.WorkerHandler.generate"  # the handler, as a pack names it
    found = json_findings(
        "tuple_worker", "--no-cache", "--select", "PDL301", "--entry-point", entry, cwd=tmp_path
    )
    return [(f["code"], f["filename"], f["location"]["row"], f["member"]) for f in found]


def test_a_caller_raising_on_the_value_taken_from_the_payload(tmp_path: Path) -> None:
    assert _findings(tmp_path, "params") == []


def test_a_caller_raising_on_another_returned_value(tmp_path: Path) -> None:
    assert _findings(tmp_path, "metadata") == [
        ("PDL301", "tuple_worker/handler.py", 11, "prefill_result")
    ]
