"""Case 1 on real code: public sglang wheels (downloaded, never committed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pdlint_helpers import json_findings
from real_sglang import release_check, sglang_tree


@pytest.mark.real
@pytest.mark.parametrize("packs", [[], ["--no-packs"]], ids=["sglang-pack", "no-packs"])
def test_dflash_gap_found(packs: list[str]) -> None:
    run = release_check("0.5.16", *packs)
    findings = run.findings()
    print(
        f"\npdlint on sglang 0.5.16 ({'no packs' if packs else 'sglang pack'}): {run.seconds:.1f} s"
    )
    pdl101 = [f for f in findings if f["code"] == "PDL101"]
    at_837 = {
        f["member"]
        for f in pdl101
        if f["filename"] == "sglang/srt/speculative/spec_utils.py" and f["location"]["row"] == 837
    }
    assert {"DFLASH", "DSPARK"} <= at_837
    for finding in pdl101:
        assert finding["member"] not in ("EAGLE", "EAGLE3", "NONE")
        if finding["location"]["row"] == 837:
            first, last = finding["path"][0], finding["path"][-1]
            assert first["filename"] == "sglang/srt/disaggregation/decode.py"
            assert "disagg_decode" in first["function"] and "event_loop" in first["function"]
            assert any("spec_prepare_for_decode" in step["message"] for step in finding["path"])
            assert last["filename"] == "sglang/srt/speculative/spec_utils.py"
    # the placeholder each crash hides from view, were it guarded
    notes = {
        (f["member"], r["filename"].removeprefix("sglang/srt/speculative/"), r["location"]["row"])
        for f in pdl101
        if f["location"]["row"] == 837
        for r in f["related"]
        if "idle placeholder" in r["message"]
    }
    assert notes == {
        ("DFLASH", "dflash_worker_v2.py", 1438),
        ("DSPARK", "dspark_components/dspark_worker_v2.py", 481),
    }
    pdl001 = [f for f in findings if f["code"] == "PDL001"]
    assert any(
        f["filename"] == "sglang/srt/speculative/spec_info.py" and "DFLASH" in f["member"]
        for f in pdl001
    )
    # Every finding, each judged after reading the code (see the issue notes):
    # DFLASH/DSPARK crash at spec_utils.py:837 and NGRAM in its worker's draft
    # preparation (true gaps; one finding for the statement reading two fields of
    # ``spec_info`` at 212-213); the DFLASH, DSPARK and STANDALONE workers each
    # install an idle placeholder when spec_info is None, which a decode batch of
    # real requests reaches under PD (masked state): for DFLASH and DSPARK only
    # after ``spec_prepare_for_decode`` (837, in ``get_next_disagg_decode_batch_to_run``)
    # crashed, so their placeholders are notes of the 837 findings, while
    # STANDALONE's is a PDL103 of its own. No IDLE batch reaches an
    # unguarded consumer (no PDL102). The MORI backend still halves the decode
    # side's descriptor list, the split the upstream fix removed from
    # common/conn.py (PDL201, true; see test_real_layout.py). STANDALONE's first
    # crash is in the relay's fallback: ``RelayPayload(bonus_tokens=...)`` goes to
    # ``FutureMap.stash``, whose first fill reads ``payload.topk_p[0]`` under
    # ``need_topk`` (true for STANDALONE; PDL104, true). FROZEN_KV_MTP is in
    # ``is_eagle()``, so the builder makes it a plain ``EagleDraftInput``, which
    # ``FrozenKVMTPDraftWorker.draft`` (its worker alone) asserts to be a
    # ``FrozenKVMTPDraftInput`` (PDL105, true: the subclass is never made on decode).
    assert sorted(
        (f["code"], f["filename"].removeprefix("sglang/srt/"), f["location"]["row"], f["member"])
        for f in findings
    ) == [
        ("PDL001", "speculative/spec_info.py", 164, "DFLASH,DSPARK,STANDALONE,NGRAM,NONE"),
        ("PDL101", "speculative/ngram_worker.py", 212, "NGRAM"),
        ("PDL101", "speculative/spec_utils.py", 837, "DFLASH"),
        ("PDL101", "speculative/spec_utils.py", 837, "DSPARK"),
        ("PDL103", "speculative/eagle_worker_v2.py", 1171, "STANDALONE"),
        ("PDL104", "managers/overlap_utils.py", 313, "STANDALONE"),
        ("PDL105", "speculative/frozen_kv_mtp_worker_v2.py", 413, "FROZEN_KV_MTP"),
        ("PDL201", "disaggregation/mori/conn.py", 712, "kv_mem_descs"),
    ]
    assert run.seconds < 60


@pytest.fixture(scope="module")
def sglang_0_5_23() -> Path:
    return sglang_tree("0.5.23")


@pytest.mark.real
@pytest.mark.parametrize("packs", [[], ["--no-packs"]], ids=["sglang-pack", "no-packs"])
def test_newest_release(sglang_0_5_23: Path, packs: list[str], tmp_path: Path) -> None:
    """Every finding on the newest release, each judged after reading the code.

    STANDALONE's decode step installs an idle placeholder for batches of real
    requests (eagle_worker_v2.py:1456, masked state); NGRAM reads
    ``spec_info.accept_tokens`` under overlap scheduling (true gap). UNO has no
    decode-side builder and ``spec_prepare_for_decode`` raises when its
    ``spec_info`` is not an ``UnoDraftInput`` (spec_utils.py:1265): loud, but at
    the first decode step after the handoff, and no startup check rejects UNO on a
    decode server (a late failure, true gap). NGRAM's relay fallback stashes a
    ``RelayPayload`` with no ``accept_tokens``, which ``FutureMap.stash`` reads for
    NGRAM on its first fill (overlap_utils.py:435; PDL104, true). FROZEN_KV_MTP's
    builder branch (``is_eagle()``) makes a plain ``EagleDraftInput``, which its
    draft worker asserts to be a ``FrozenKVMTPDraftInput`` (frozen_kv_mtp_worker_v2.py:465;
    PDL105, true). The
    placeholder in ``_forward_dp_spec_prefill_coordination`` (:1637) is reached
    only with ``SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION`` on, which
    ``handle_speculative_decoding`` rejects at startup for every algorithm but
    EAGLE, EAGLE3 and DSPARK: no finding for STANDALONE there.
    ``_pp_snapshot_forward_batch`` (scheduler_pp_mixin.py:60) returns a snapshot
    batch for every speculative algorithm and None for NONE; the pipeline loop
    passes it to ``PPBatchMetadata(fwd_batch=...)`` (a relay through a
    constructor): an inventory note, with no consumer finding, as its readers
    fall back to the live batch when it is None.
    """
    findings = json_findings("sglang", *packs, "--cache-dir", str(tmp_path), cwd=sglang_0_5_23)
    # NGRAM splices the previous round's tokens only under overlap scheduling
    # (``use_prev_tokens = self.enable_overlap and ...``): the path starts at the loop
    # the scheduler runs with overlap on
    (ngram,) = [f for f in findings if f["code"] == "PDL101" and f["member"] == "NGRAM"]
    assert ngram["path"][0]["function"].endswith("event_loop_overlap_disagg_decode")
    assert sorted(
        (f["code"], f["filename"].removeprefix("sglang/srt/"), f["location"]["row"], f["member"])
        for f in findings
    ) == [
        ("PDL001", "managers/scheduler_pp_mixin.py", 60, "NONE"),
        ("PDL001", "speculative/spec_info.py", 202, "UNO,STANDALONE,NGRAM,NONE"),
        ("PDL101", "speculative/ngram_worker.py", 264, "NGRAM"),
        ("PDL101", "speculative/spec_utils.py", 1265, "UNO"),
        ("PDL103", "speculative/eagle_worker_v2.py", 1456, "STANDALONE"),
        ("PDL104", "managers/overlap_utils.py", 435, "NGRAM"),
        ("PDL105", "speculative/frozen_kv_mtp_worker_v2.py", 465, "FROZEN_KV_MTP"),
    ]


@pytest.mark.real
@pytest.mark.parametrize(
    ("version", "relay_line", "gaps", "late"),
    [
        # SpeculativeAlgorithm is a registry: SpeculativeAlgorithm.register("NONE"), then
        # register_speculative_algorithm("EAGLE", flags=("EAGLE",)) and the like
        ("0.5.7", 105, "NONE,STANDALONE,NGRAM", None),
        # an Enum again; STANDALONE's worker (an EAGLEWorker) asserts an
        # EagleDraftInput in its draft step, the first decode step after the handoff
        ("0.5.8", 105, "STANDALONE,NGRAM,NONE", ("speculative/eagle_worker.py", 531)),
    ],
)
def test_inline_builder_before_the_builder_function(
    version: str, relay_line: int, gaps: str, late: tuple[str, int] | None
) -> None:
    """Before 0.5.13 the relay built spec_info inline (``if self.spec_algorithm.is_eagle():
    ... self.spec_info = spec_info``, no else): process_prebuilt is the builder, and
    EAGLE and EAGLE3 (the members it builds for) are never reported."""
    findings = json_findings("sglang", "--no-cache", cwd=sglang_tree(version))
    found = {
        (f["code"], f["filename"].removeprefix("sglang/srt/"), f["location"]["row"], f["member"])
        for f in findings
    }
    assert ("PDL001", "disaggregation/decode_schedule_batch_mixin.py", relay_line, gaps) in found
    if late is not None:
        assert ("PDL101", *late, "STANDALONE") in found
    assert not {f["member"] for f in findings} & {"EAGLE", "EAGLE3"}
