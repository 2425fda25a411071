"""The rule the layout check reports: PDL201 handoff-layout-asymmetry."""

from __future__ import annotations

from pdlint.checks.base import Rule

RULES = (
    Rule(
        code="PDL201",
        name="handoff-layout-asymmetry",
        summary="A handoff list built under a role-local setting is split by an assumed shape",
        severity="error",
        tags=("pd-disaggregation", "wrong-output"),
        explanation="""\
Each side of the handoff registers a list (for example KV buffer addresses
[K..., V...]) and sends it to its peer, and may append entries under a setting
of its own role (a draft model's buffers when speculative decoding is on). Code
that derives offsets into the peer's copy of that list from an assumed shape
(len(dst) // 2, len(dst) // k, a count taken from the peer's length) is right
only when both roles agree on that setting; when only the peer has it, every
offset past the first group lands in the wrong group and the output is silently
wrong (SGLang measured 0.011 instead of 0.920 on GSM8K).

pdlint finds the lists by structure (appended to under a draft, speculative or
pack-named condition on a setup path, stored into an attribute, and lists built
from them entry by entry) and the peer's copies by name (dst_, peer_, remote_
prefixes, or a pack's [layout] table), through aliases and helper calls. It
evaluates each offset with both lists alike and with the peer's list longer: an
offset that moves is reported. Code not reached with the longer list (after an
equality check that raises, in a branch for the mismatched case) and offsets
from a count the peer sent are not reported; neither are offsets that cannot be
computed. Such a check in a function that indexes the peer's copy itself (another
transfer path) guards that function only; elsewhere it is taken as the handshake's,
which rejects the mismatched configurations for every transfer. The opposite
case, this side holding the extra entries, is not reported: offsets taken from
this side's length then overrun the peer's list (an IndexError or a clamped
slice) rather than land in a wrong group.

The finding is on the offset's use into the peer's copy, and its member is the
name of the list (the attribute it is stored into, `kv_ptrs`).

Fix: send the layout (the count per group) with the handoff and index by it,
or reject mismatched configurations at the handshake.""",
        example="""\
if self.draft_pool is not None:
    ptrs += self.draft_pool.k_ptrs + self.draft_pool.v_ptrs
args.kv_ptrs = ptrs                     # sent to the peer at registration
...
half = len(dst_kv_ptrs) // 2
dst_v = dst_kv_ptrs[half:half + layers]  # PDL201: peer may have draft buffers""",
    ),
)
