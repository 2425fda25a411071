"""The rules the mode check reports: PDL102 mode-bypass, PDL103 masked-state."""

from __future__ import annotations

from pdlint.checks.base import Rule

RULES = (
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
state is whatever its constructor left (None). The relay state is what a
per-variant builder stores, or what the decode path rebuilds for every handed-off
batch (`batch.sampling_info = SamplingInfo.from_handoff(reqs)`) where the batch's
class starts it None. A consumer reached by that mode without a mode check or a
None check crashes.

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

Where M's request crashes at a consumer before it gets to the placeholder, on
every path from the decode entry points, the crash is the finding (PDL101) and the
placeholder one of its related locations: guarding that consumer alone would only
move the failure here.

Fix: build the state for M in the builder, or raise for M (in the builder or in
a startup validator), and keep the placeholder for the idle mode only.""",
        example="""\
if batch.draft_input is None:
    batch.draft_input = DraftInput.create_idle_input()   # PDL103 for DFLASH""",
    ),
)
