"""Case 3 on real code: SGLang's KV transfer before and after the upstream fix.

"Wrong Answer in PD disaggregation [P w/o SPS | D w/ SPS]" (sgl-project/sglang
#17212) changed ``get_mha_kv_ptrs_with_pp`` in ``disaggregation/common/conn.py``
between the 0.5.7 and 0.5.8 wheels; the MORI backend of 0.5.16 still halves the
peer's descriptor list the old way. Wheels are downloaded, never committed.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from pdlint_helpers import json_findings
from real_sglang import sglang_tree

TRANSFER = "sglang/srt/disaggregation"
PACKS = pytest.mark.parametrize("packs", [[], ["--no-packs"]], ids=["sglang-pack", "no-packs"])


def layout_findings(version: str, packs: list[str]) -> list[dict]:
    root: Path = sglang_tree(version)
    start = time.monotonic()
    found = json_findings(TRANSFER, "--select", "PDL201", "--no-cache", *packs, cwd=root)
    elapsed = time.monotonic() - start
    print(f"\npdlint PDL201 on sglang {version} {TRANSFER} {packs}: {elapsed:.1f} s")
    assert elapsed < 30
    return found


@pytest.mark.real
@PACKS
def test_halved_peer_list_found_before_the_fix(packs: list[str]) -> None:
    found = layout_findings("0.5.7", packs)
    assert [(f["filename"], f["location"]["row"], f["member"]) for f in found] == [
        ("sglang/srt/disaggregation/common/conn.py", 168, "kv_data_ptrs")
    ]
    message = found[0]["message"]
    assert "`dst_num_total_layers = len(dst_kv_ptrs) // 2`" in message
    assert "`self.draft_token_to_kv_pool is not None` holds on the peer's role" in message
    appends = {(r["filename"], r["location"]["row"]) for r in found[0]["related"]}
    assert ("sglang/srt/disaggregation/decode.py", 270) in appends
    assert ("sglang/srt/disaggregation/prefill.py", 138) in appends


@pytest.mark.real
@PACKS
def test_nothing_after_the_fix(packs: list[str]) -> None:
    assert layout_findings("0.5.8", packs) == []


@pytest.mark.real
@PACKS
def test_mori_backend_still_halves_in_0_5_16(packs: list[str]) -> None:
    found = layout_findings("0.5.16", packs)
    assert [(f["filename"], f["location"]["row"], f["member"]) for f in found] == [
        ("sglang/srt/disaggregation/mori/conn.py", 712, "kv_mem_descs")
    ]
    assert "`dst_total_layers = len(dst_mem_descs) // 2`" in found[0]["message"]
