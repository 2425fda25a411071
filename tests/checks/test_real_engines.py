"""vLLM, Dynamo and LMCache (issue 33, point 7): their public wheels (downloaded once,
``.py`` files only, never committed), every finding pinned with its verdict, with the
bundled packs and, where the generic engine finds them too, without.

One run per release and packs setting, shared by the tests; each prints its time,
and a run over its budget fails (a regression of the lazy run, not a benchmark).

Verdicts, each after reading the code:

- vLLM 0.23.0, ``v1/core/sched/scheduler.py:736``: ``limit_lookahead_tokens =
  load_kv_async and self.use_eagle`` limits the lookahead of a request whose KV is
  loaded from the prefill side for the EAGLE family only (``use_eagle()``: eagle,
  eagle3, mtp, dflash), while ``uses_draft_model()`` sets the same nonzero
  ``num_lookahead_tokens`` (``:221``): a draft-model request allocates lookahead
  blocks the prefill side never sent (PDL107, true; upstream tests
  ``self.num_lookahead_tokens > 0`` since).
- vLLM 0.23.0 ``lmcache_integration/vllm_v1_adapter.py:412`` and 0.33.0 ``:413``:
  ``speculative_config.method == "deepseek_mtp"`` in ``_calculate_mtp_layers``, but
  ``SpeculativeConfig.__post_init__`` rewrites every ``*_mtp`` method into ``"mtp"``
  (``config/speculative.py``): the branch never runs and DeepSeek MTP takes the
  ``use_eagle()`` branch, which counts the draft model's layers instead of
  ``num_nextn_predict_layers`` (PDL108, true; the two counts agree for DeepSeek's
  single MTP layer, so a dead branch more than a wrong count). The generic engine
  finds it on both: on 0.23.0 from the model runner that drives the connector's
  receiving side (an entry point found with no pack).
- vLLM 0.33.0 and 0.34.0 ``v1/worker/gpu/attn_utils.py:98``: ``FastPrefillHelper.prepare``
  returns None for ``CUDAGraphMode.FULL`` (PDL001, a true inventory note: fast
  prefill is off under full cudagraphs, and its readers test for None: no PDL101).
- LMCache 0.5.6 ``integration/vllm/utils.py:580``: the same ``method ==
  "deepseek_mtp"`` test in ``calculate_draft_layers``, on the vLLM configuration
  LMCache is given (PDL108 with the pack, true: vLLM is not analysed with LMCache,
  so only the pack's ``[variants.rewrites]`` says the value is gone).
- Dynamo 1.6.1 ``vllm/handlers.py:3888``: ``DecodeWorkerHandler._generate_token_mode``
  reads ``request.get("prefill_result")`` and takes the KV transfer parameters only
  ``if prefill_result``, else ``kv_params = None``; in decode mode, without the bypass
  annotation, a request with no prefill result runs a full local prefill on the decode
  worker with nothing logged (PDL301, debatable: the tokens are right and Dynamo's
  decode health-check payload, which carries no prefill result, relies on this
  fallback; its sample engine's ``require_prefill_result`` with an ``is_probe``
  bypass is the loud form). Clean: the TensorRT-LLM handler's
  ``_setup_disaggregated_params_for_mode`` reads it softly too, but its caller
  ``_generate_locally_impl`` raises in decode mode when the parameters it returns are
  None; Dynamo's SGLang decode handler raises when ``bootstrap_info`` is missing, and
  its sample engine calls ``require_prefill_result``.
- SGLang 0.5.16 resolves ``--speculative-algorithm NEXTN`` into EAGLE while its
  ``ServerArgs`` is made (``__post_init__`` gives ``self`` to
  ``handle_speculative_decoding``, which upper-cases the name and stores
  ``_resolve_speculative_algorithm_alias(...)``, after a dummy-model return and
  raises); no SGLang code tests for NEXTN after that, so a probe module of our own
  placed beside its configuration code does: its branch is dead (PDL108, generic
  engine).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from pdlint_helpers import json_findings
from real_sglang import sglang_tree
from real_wheels import wheel_tree

# seconds a run may take, far above its time here (a regression, not a benchmark)
BUDGET = 240.0

RELEASES = {
    "vllm-0.23.0": ("vllm", "0.23.0", "vllm"),
    "vllm-0.33.0": ("vllm", "0.33.0", "vllm"),
    "vllm-0.34.0": ("vllm", "0.34.0", "vllm"),
    "dynamo-1.6.1": ("ai-dynamo", "1.6.1", "dynamo"),
    "lmcache-0.5.6": ("lmcache", "0.5.6", "lmcache"),
}
Row = tuple[str, str, int, str]
_RUNS: dict[tuple[str, bool], tuple[list[dict], list[Row]]] = {}


def run(release: str, packs: bool) -> tuple[list[dict], list[Row]]:
    """The findings of one run (made once per release and packs setting), with their
    ``(code, file, line, member)`` rows; the run's time is printed."""
    key = (release, packs)
    if key not in _RUNS:
        project, version, top = RELEASES[release]
        tree: Path = wheel_tree(project, version, top)
        start = time.monotonic()
        findings = json_findings(top, "--no-cache", *(() if packs else ("--no-packs",)), cwd=tree)
        elapsed = time.monotonic() - start
        print(f"\npdlint on {release} ({'packs' if packs else 'no packs'}): {elapsed:.1f} s")
        assert elapsed < BUDGET
        rows = sorted(
            (f["code"], f["filename"].removeprefix(f"{top}/"), f["location"]["row"], f["member"])
            for f in findings
        )
        _RUNS[key] = (findings, rows)
    return _RUNS[key]


@pytest.mark.real
@pytest.mark.parametrize("packs", [True, False], ids=["vllm-pack", "no-packs"])
def test_vllm_0_23_0_limits_the_lookahead_for_eagle_only(packs: bool) -> None:
    findings, rows = run("vllm-0.23.0", packs)
    dead = (
        "PDL108",
        "distributed/kv_transfer/kv_connector/v1/lmcache_integration/vllm_v1_adapter.py",
    )
    expected = [
        ("PDL107", "v1/core/sched/scheduler.py", 736, "draft_model"),
        # with no pack too: the model runner that drives the connector is an entry point
        (*dead, 412, "deepseek_mtp"),
    ]
    assert rows == expected
    (narrow,) = [f for f in findings if f["code"] == "PDL107"]
    assert "`load_kv_async and self.use_eagle`" in narrow["message"]
    related = [(r["filename"], r["location"]["row"]) for r in narrow["related"]]
    assert ("vllm/v1/core/sched/scheduler.py", 221) in related  # draft_model's lookahead
    assert narrow["path"][0]["function"].endswith("Scheduler.schedule")


@pytest.mark.real
def test_vllm_0_33_0_is_fixed_but_still_tests_a_rewritten_method() -> None:
    _, rows = run("vllm-0.33.0", True)
    assert rows == [
        ("PDL001", "v1/worker/gpu/attn_utils.py", 98, "FULL"),
        (
            "PDL108",
            "distributed/kv_transfer/kv_connector/v1/lmcache_integration/vllm_v1_adapter.py",
            413,
            "deepseek_mtp",
        ),
    ]


@pytest.mark.real
def test_vllm_0_34_0_limits_every_lookahead() -> None:
    _, rows = run("vllm-0.34.0", True)
    assert rows == [("PDL001", "v1/worker/gpu/attn_utils.py", 98, "FULL")]


@pytest.mark.real
def test_lmcache_0_5_6_tests_a_method_vllm_rewrites() -> None:
    _, rows = run("lmcache-0.5.6", True)
    assert rows == [("PDL108", "integration/vllm/utils.py", 580, "deepseek_mtp")]


@pytest.mark.real
@pytest.mark.parametrize("packs", [True, False], ids=["dynamo-pack", "no-packs"])
def test_dynamo_1_6_1_vllm_decode_handler_reads_the_prefill_result_softly(packs: bool) -> None:
    findings, rows = run("dynamo-1.6.1", packs)
    assert rows == [("PDL301", "vllm/handlers.py", 3888, "prefill_result")]
    (soft,) = findings
    assert "`_update_kv_transfer_params(...)` runs only when it is there" in soft["message"]


# Our own decode loop, added to a copy of SGLang: it tests the algorithm as given.
NEXTN_PROBE = """\
from sglang.srt.server_args import ServerArgs


class ProbeDecodeDisagg:
    def __init__(self, server_args: ServerArgs) -> None:
        self.server_args = server_args

    def event_loop_disagg_decode(self) -> int:
        if self.server_args.speculative_algorithm == "NEXTN":
            return 1
        return 2
"""


@pytest.mark.real
def test_sglang_0_5_16_resolves_nextn_into_eagle(tmp_path: Path) -> None:
    # SGLang's configuration code (its server arguments and the hooks they run), with
    # the probe as its one decode loop
    release = sglang_tree("0.5.16")
    tree = tmp_path / "sglang-0.5.16"
    for part in ("sglang/__init__.py", "sglang/srt/server_args.py", "sglang/srt/arg_groups"):
        source, copy = release / part, tree / part
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, copy)
    (tree / "sglang/srt/disaggregation").mkdir()
    (tree / "sglang/srt/disaggregation/probe_nextn.py").write_text(NEXTN_PROBE)
    start = time.monotonic()
    findings = json_findings("sglang", "--no-cache", "--no-packs", "--select", "PDL108", cwd=tree)
    elapsed = time.monotonic() - start
    print(f"\npdlint on sglang-0.5.16's configuration code (no packs): {elapsed:.1f} s")
    assert elapsed < BUDGET
    rows = [(f["code"], f["filename"], f["location"]["row"], f["member"]) for f in findings]
    assert rows == [("PDL108", "sglang/srt/disaggregation/probe_nextn.py", 9, "NEXTN")]
    related = [(r["filename"], r["location"]["row"]) for r in findings[0]["related"]]
    assert related == [("sglang/srt/arg_groups/speculative_hook.py", 98)]  # the store
