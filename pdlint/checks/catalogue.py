"""The rule catalogue: one place holding each rule's code, name, texts and severity.

Everything that describes a rule to a user (``pdlint rules``, ``pdlint rule``,
SARIF ``rules[]``, the language server's code descriptions) reads it from here.
"""

from __future__ import annotations

from dataclasses import dataclass

DOCS_URL = "https://github.com/pdlint/pdlint/blob/main/docs/rules.md"


@dataclass(frozen=True)
class Rule:
    """Metadata of one rule."""

    code: str
    name: str
    summary: str
    explanation: str
    example: str
    severity: str  # "error", "warning" or "note" (SARIF levels)
    precision: str = "high"
    tags: tuple[str, ...] = ()

    @property
    def help_uri(self) -> str:
        return f"{DOCS_URL}#{self.code.lower()}-{self.name}"


_RULES = (
    Rule(
        code="PDL001",
        name="dispatch-gap",
        summary="A per-variant builder on the relay returns None for some members",
        severity="note",
        tags=("pd-disaggregation", "inventory"),
        explanation="""\
A dispatch function (a builder) branches on a variant value (a speculative
algorithm, a batch mode) and returns a value for some members and None for the
others. Under prefill/decode disaggregation the decode side rebuilds
per-request state through such builders, so the members it returns None for
have no decode-side state. This note is the support inventory: it lists those
members at the builder. It becomes an error (PDL101) only where a member
without state reaches a consumer of that state.""",
        example="""\
class Algo(Enum):
    EAGLE = auto()
    DFLASH = auto()

    def build_draft_input(self, batch):
        if self is Algo.EAGLE:
            return EagleDraftInput(batch)
        return None          # PDL001: returns None for DFLASH""",
    ),
    Rule(
        code="PDL101",
        name="relay-state-missing",
        summary="A member reaches a consumer of relay state that its builder never built",
        severity="error",
        tags=("pd-disaggregation", "crash", "correctness"),
        explanation="""\
A request handed over from prefill enters the decode engine through a relay
path that rebuilds per-request state with a per-variant builder and stores it
in an attribute (the relay state). For member M the builder returns None, so
the state is never set, yet a consumer reached from a disaggregated decode
entry point dereferences the state while the variant is M. In a colocated
deployment the local prefill builds the state and everything works; under PD
the first decode step fails (AttributeError on None) or computes on garbage.

Fix: build the state for M in the builder, or fail loudly and early for M: raise
in the builder's branch for M, or reject M with disaggregation mode "decode" in
a startup validator (pdlint treats both as handled). A validator that rejects M
only with some setting on (``if FLAG and algo not in (...): raise``) tells pdlint
that M never runs with FLAG on: code reached only under FLAG is not reached by M.""",
        example="""\
# relay (decode side)
info = self.algo.build_draft_input(self)     # None for DFLASH
if info is not None:
    self.draft_input = info

# consumer, reached from event_loop_disagg_decode
if batch.algo.is_dflash():
    batch.draft_input.prepare(batch)          # PDL101 for DFLASH""",
    ),
    Rule(
        code="PDL102",
        name="mode-bypass",
        summary="A batch mode that never runs the relay builder reaches an unguarded consumer",
        severity="error",
        tags=("pd-disaggregation", "crash"),
        explanation="""\
Decode loops also run batches that no handoff produced: an IDLE batch (a
data-parallel rank with no work still joins the collective forward), dummy or
warm-up batches. Such a batch never passes the relay builder, so its relay
state is whatever its constructor left (None). A consumer reached by that mode
without a mode check or a None check crashes.

Fix: guard the consumer with an explicit mode check, or with a None check that
builds a placeholder for the idle mode (for example a create_idle_input()
factory).""",
        example="""\
idle = ScheduleBatch(mode=Mode.IDLE)          # never passes the relay
run_forward(idle)

def run_forward(batch):
    batch.draft_input.prepare(batch)          # PDL102 for IDLE""",
    ),
    Rule(
        code="PDL103",
        name="masked-state",
        summary="An idle placeholder hides relay state missing for a non-idle batch",
        severity="warning",
        tags=("pd-disaggregation", "correctness"),
        explanation="""\
A None check on the relay state builds an idle placeholder, which is right for
an IDLE batch. But a batch of real requests whose builder skipped member M also
reaches that check with the state missing, and the placeholder hides the gap:
zero rows of state for a batch of real requests, and the failure moves further
down.

Fix: build the state for M in the builder, or raise for M (in the builder or in
a startup validator), and keep the placeholder for the idle mode only.""",
        example="""\
if batch.draft_input is None:
    batch.draft_input = DraftInput.create_idle_input()   # PDL103 for DFLASH""",
    ),
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
computed. The opposite case, this side holding the extra entries, is not
reported: offsets taken from this side's length then overrun the peer's list
(an IndexError or a clamped slice) rather than land in a wrong group.

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
    Rule(
        code="PDL900",
        name="parse-error",
        summary="A file could not be read or parsed; the run goes on",
        severity="error",
        tags=("reliability",),
        explanation="""\
pdlint could not read or parse the file (a syntax error, an encoding that is
not valid, NUL bytes, an unreadable file). The file contributes no facts to the
analysis; every other file is still analysed. The message carries the
parser's line and column where known.""",
        example="x = (1,  # PDL900: '(' was never closed",
    ),
    Rule(
        code="PDL901",
        name="config-error",
        summary="A configuration or rule-pack problem",
        severity="error",
        tags=("configuration",),
        explanation="""\
A configuration file or rule pack could not be used: malformed TOML, an unknown
key, a value of the wrong type, an unknown rule code. A fatal problem stops the
run with exit code 2 and a message naming the file and the key.""",
        example="[tool.pdlint]\nselcet = [\"PDL1\"]   # PDL901: unknown key 'selcet'",
    ),
)

RULES: dict[str, Rule] = {rule.code: rule for rule in _RULES}


def get_rule(code: str) -> Rule | None:
    """Return the rule with ``code`` (case-insensitive), or None."""
    return RULES.get(code.upper())
