"""The rules the guard check reports: PDL107 guard-narrower-than-effect, PDL108
dead-variant-branch."""

from __future__ import annotations

from pdlint.checks.base import Rule

RULES = (
    Rule(
        code="PDL107",
        name="guard-narrower-than-effect",
        summary="A guard limits a resource for some members, but more members have it",
        severity="error",
        tags=("pd-disaggregation", "correctness"),
        explanation="""\
A flag computed as `condition and <predicate of the variant>` limits a resource
(lookahead slots, draft KV blocks, a transfer) that depends on the variant: the
code uses zero (or nothing) when the flag holds and the resource otherwise. Every
member for which the resource is set to a nonzero value needs the limit, but the
predicate holds only for some of them: the others get the unlimited behaviour.
Under prefill/decode disaggregation this is typically a decode side allocating
more blocks than the prefill side sent for a request whose KV is loaded
asynchronously, and the transfer fails or waits for blocks that never come.

The finding is reported at the guard: where the flag is computed, or the `if`
that tests the condition itself. It names the members the guard misses, and where
the resource is set to a nonzero value for them (when it is read from a property of
the configuration, `self.num_lookahead = config.num_lookahead` or the property read
where it is limited, the property's return for them).

The rule reads the code the decode entry points reach (those pdlint finds, and
those `entry-points` or `--entry-point` name): a scheduler that the decode role
runs from elsewhere (an engine core's loop) is not read unless a function that
reaches it is named an entry point.

Fix: test the resource itself (`load_async and self.num_lookahead > 0`), or
widen the predicate to every member that sets the resource.""",
        example="""\
if cfg.uses_tree_head():
    self.use_tree_head = True
    self.num_lookahead = cfg.num_draft_tokens
if cfg.uses_draft_model():
    self.num_lookahead = cfg.num_draft_tokens      # draft_model needs it too
...
limit = load_async and self.use_tree_head          # PDL107: misses draft_model
lookahead = 0 if limit else self.num_lookahead""",
    ),
    Rule(
        code="PDL108",
        name="dead-variant-branch",
        summary="A branch on a variant value that can no longer be there",
        severity="warning",
        tags=("pd-disaggregation", "correctness"),
        explanation="""\
A branch tests a variant value (an enum member, a literal, a configuration
string) that cannot be there where the branch runs: the holder's construction
rewrites it into another (`if self.method in get_args(MTPMethods): self.method =
"mtp"`; NEXTN becomes EAGLE), or the value is not one of the variant's own (a
`Literal` that does not list it). The branch never runs, and the configuration it
was written for falls to the next branch or the default. The rule reads the code
the decode entry points reach, and the other files that test a value the variant
can no longer hold.

Fix: test the value the configuration holds once made (`method == "mtp"`, or the
predicate defined over the variant), or move the test before the rewrite. A rule
pack names settings of a framework the analysed code reads but does not contain
(`[variants.rewrites]`).""",
        example="""\
@dataclass
class SpecConfig:
    method: Literal["eagle", "deepseek_mtp", "mtp"]
    def __post_init__(self):
        if self.method.endswith("_mtp"):
            self.method = "mtp"

if cfg.method == "deepseek_mtp":      # PDL108: always "mtp" by now
    layers = cfg.num_nextn_layers""",
    ),
)
