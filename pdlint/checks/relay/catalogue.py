"""The rules the relay check reports: PDL001 dispatch-gap, PDL101 relay-state-missing,
PDL104 relay-field-missing, PDL105 relay-state-type, PDL106 unwired-builder."""

from __future__ import annotations

from pdlint.checks.base import Rule

RULES = (
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
have no decode-side state. The relay method itself is such a builder when it
stores the state (a new object, the attribute None until then) only under a test
of the variant, with no store for some members (``if algo.is_eagle(): self.draft =
EagleDraft(...)`` with no else, a ``match`` with no case for them). So is a method
called on an object whose class the variant picks (``self.proposer.build_state(h)``,
one proposer class per member, from a factory on the variant or a setting string)
when the classes of some members inherit a base method returning None and the
others override it: the note is on that method, for those members. This note is
the support inventory: it lists those members at the builder, but for those a
startup validator rejects under disaggregation decode (they never run there). It
becomes an error (PDL101) only where a member without state reaches a consumer of
that state.

The note is reported on the builder's ``def`` line (the ``return None`` of each
member is among its related locations), and its member is the comma-separated
list of those members.""",
        example="""\
class Algo(Enum):
    EAGLE = auto()
    DFLASH = auto()

    def build_draft_input(self, batch):   # PDL001: returns None for DFLASH
        if self is Algo.EAGLE:
            return EagleDraftInput(batch)
        return None""",
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
in an attribute (the relay state). For member M the builder returns None (or
the relay calls it only under a test that never holds for M, the shape PDL106
reports at the builder), so the state is never set, yet a consumer reached from
a disaggregated decode entry point dereferences the state while the variant is
M. In a colocated
deployment the local prefill builds the state and everything works; under PD
the first decode step fails (AttributeError on None) or computes on garbage.

Fix: build the state for M in the builder, or fail loudly and early for M: raise
in the builder's branch for M, or reject M with disaggregation mode "decode" in
a startup validator (pdlint treats both as handled). A consumer that raises when
the state is None (``if batch.state is None: raise``, ``assert isinstance(...)``)
is reported too, as a late failure: every request of M still fails, at its first
decode step after the handoff moved its KV cache; only a check reached by idle or
dummy batches alone is left to the mode check. A consumer the request of M reaches
only after such a raise, on every path, is not reported on its own: it is a
related location of the raise ("would fail here next"). A consumer reads the state
directly (``batch.state.x``) or through a local given it (``st = batch.state``,
then ``st.x``); a local annotated with a class that nothing the builder makes is
related to (``plan: VerifyPlan = batch.state`` where the builder makes a
``DraftState``) reads a state another step stored, and is not a consumer of the
relay's. When the relay stores the state on its own object (``self.window =
...`` in a transfer callback), the object's other entry points (a later
``ready()`` callback) are consumers too, though they do not reach the relay. A
validator that rejects M
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
        code="PDL104",
        name="relay-field-missing",
        summary="The relay's fallback makes a carrier with a field left None that a member reads",
        severity="error",
        tags=("pd-disaggregation", "crash", "correctness"),
        explanation="""\
Where the per-variant builder returns None, a relay often takes a fallback that
builds a carrier object with only some fields (``Payload(tokens=t)``, the others
defaulting to None in the class or the dataclass) and hands it on. Downstream a
test of the variant that holds for member M (``if algo.needs_tree():``) reads one
of the fields the fallback left None: every request of M crashes there under
prefill/decode disaggregation, although the colocated path (which fills every
field) works. pdlint follows the carrier through the arguments that receive it
(constructor keywords, positional arguments bound to parameters, dataclass
defaults, ``__init__`` stores of None or of a parameter defaulting to None) and
through a local it is chosen into (``payload = base`` in one branch, handed on
after the if/else), and reports the dereference, with the construction site as a
related location. The relay need not store the state anywhere: handing what the
builder made on only inside the carrier (``Payload(t, scores=state.scores)``) is a
relay of that field.

Fix: give the field in the fallback for M, build the state for M in the builder
(so the fallback is not taken), or reject M with disaggregation mode "decode" in a
startup validator.""",
        example="""\
# relay (decode side): the builder returns None for LOOKAHEAD
state = self.algo.build_draft_state(self)
if state is None:
    self.relay.stash(Payload(tokens=last))   # tree_scores left None

# consumer
def stash(self, payload):
    if self.algo.needs_tree():              # true for LOOKAHEAD
        first = payload.tree_scores[0]       # PDL104 for LOOKAHEAD

# fix: give the field in the fallback
    self.relay.stash(Payload(tokens=last, tree_scores=scores))""",
    ),
    Rule(
        code="PDL105",
        name="relay-state-type",
        summary="The builder makes the member's relay state of a class a consumer does not accept",
        severity="error",
        tags=("pd-disaggregation", "crash", "correctness"),
        explanation="""\
The builder returns a value for member M, so the relay state is set, but of a
class a consumer reached by M does not accept: the consumer asserts or tests a
subclass (``assert isinstance(state, TreeCacheState)``, ``if not
isinstance(...): raise``), itself or in a function the state is passed to, or
calls a method only a subclass, or the class the builder makes for another
member, defines. Builders often share a branch between related members (``if
algo.is_tree_family(): return TreeState(...)``) while one of them needs its own
subclass: under
prefill/decode disaggregation every request of M fails at that consumer, after
the handoff moved its KV cache, although the colocated path (where M's own
prefill makes the subclass) works. pdlint follows the classes each builder
branch makes for M (constructors, the returns of the functions it calls) and
reports the consumer; a class it cannot fully resolve is never reported.

Fix: make the subclass M needs in the builder (a branch of its own), or reject M
with disaggregation mode "decode" in a startup validator.""",
        example="""\
# builder: one branch for the tree family, CACHED_TREE included
def build_draft_state(self, batch):
    if self.is_tree_family():               # TREE, CACHED_TREE
        return TreeState(batch)
    return None

# consumer, reached only for CACHED_TREE
def draft(self, batch):
    state = batch.draft_state
    assert isinstance(state, CachedTreeState)   # PDL105 for CACHED_TREE

# fix: a branch of its own, before the family's
    if self is Algo.CACHED_TREE:
        return CachedTreeState(batch)""",
    ),
    Rule(
        code="PDL106",
        name="unwired-builder",
        summary="A builder of the relay state exists, but the relay never calls it for a member",
        severity="warning",
        tags=("pd-disaggregation", "crash", "correctness"),
        explanation="""\
The code that builds the relay state for member M exists, but the relay does not
run it for M, so requests of M still arrive on decode with no state. Two shapes:
the relay calls the builder only under a test of the variant that never holds for
M although the builder makes M's state (``if algo.is_tree(): info =
algo.build_draft(...)`` while ``build_draft`` also builds CHAIN's); or the builder
dispatches to per-member builders named for their member (``build_tree_draft``
for TREE) and one named the same way for M exists (``build_lookup_draft``,
making a state of the same family) while the dispatcher returns None for M and
nothing on the relay calls it. The finding is at the builder left out, with the
relay as a related location; where M reaches a consumer of the missing state,
PDL101 reports the crash too.

Fix: call the builder for M (widen the relay's test, or add M's branch to the
dispatcher), or reject M in decode mode in a startup validator.""",
        example="""\
# the dispatcher: a branch per member, none for LOOKUP
def build_draft(self, batch):
    if self is Algo.TREE:
        return build_tree_draft(batch)
    return None

def build_lookup_draft(batch):          # PDL106 for LOOKUP: nothing calls it
    return LookupDraft(batch.tokens)

# fix: the dispatcher's branch for LOOKUP
    if self is Algo.LOOKUP:
        return build_lookup_draft(batch)""",
    ),
)
