"""The rules the handoff check reports: PDL301 soft-handoff-precondition."""

from __future__ import annotations

from pdlint.checks.base import Rule

RULES = (
    Rule(
        code="PDL301",
        name="soft-handoff-precondition",
        summary="A decode handler reads the handoff payload softly and goes on without it",
        severity="warning",
        tags=("pd-disaggregation", "correctness"),
        explanation="""\
A request that reaches a decode worker under disaggregation must carry the
prefill side's result (its KV transfer parameters, its first token). A handler
reached from a decode entry point reads that payload softly
(`request.get("prefill_result")` tested with `if payload:` or in a walrus, or an
`or {}` fallback; the keys `prefill_result`, `disaggregated_params` and
`bootstrap_info`, and a pack's) and, when it is missing, goes on without it (a
call given the payload, a store such as `kwargs["params"] = ...`, or a value taken
out of it, `params = payload["disaggregated_params"]`, runs only when it is there,
the local holding a default otherwise): the decode worker then
runs the prompt itself, waits for a transfer that never comes, or fails deep in
the engine with an error that does not say what was missing.

A handler that raises (or calls a function that raises) when the payload is
missing, or returns at once, is clean: it fails loudly and early, as Dynamo's
`require_prefill_result()` does. So is one whose caller raises in decode mode when
the value the handler took from the payload and returned is missing.

The finding is on the soft read, and its member is the payload's key
(`prefill_result`).

Fix: require the payload on the decode path (`payload =
require_prefill_result(request, mode)`), and keep the soft read for the modes
that may run without it.""",
        example="""\
async def generate(self, request):
    prefill_result = request.get("prefill_result")      # PDL301
    if prefill_result:
        params = decode_params(prefill_result)
    ...                                                 # decode goes on without it""",
    ),
)
