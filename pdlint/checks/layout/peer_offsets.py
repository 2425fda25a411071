"""PDL201's evaluation of offsets into the peer's copy of a handoff list.

Whether an expression is a copy of a list (and whose), and the value of an offset
when both roles' lists are alike and when the peer's holds extra entries (see
:mod:`pdlint.checks.layout.frames`): an offset that moves is a finding, unless the
code cannot reach it with those lengths or rejects the grown list first.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from pdlint.checks.layout.frames import AGREE, MAX_DEPTH, PEER_GROWS, Context, Frame, Move, Scenario
from pdlint.checks.layout.linear import Lin, arith, compare
from pdlint.checks.layout.lists import HandoffList
from pdlint.facts.exprs import NEGATED_OP, comparisons_with_sense, identifiers, nodes, text
from pdlint.facts.types import (
    BindFact,
    CallFact,
    Expr,
    Guards,
    IndexFact,
    Span,
    guards_at,
)
from pdlint.model.binding import bind_arguments

if TYPE_CHECKING:
    from pdlint.checks.layout.analysis import LayoutAnalysis


class PeerOffsets:
    """The copies an expression denotes and the offsets' values, in a frame.

    It reads the check's handoff lists and names (:meth:`LayoutAnalysis.named_copy`)
    and keeps the state of one evaluation: the assignments it is inside and where
    the lengths it read come from."""

    def __init__(self, check: LayoutAnalysis) -> None:
        self.check = check
        self.model = check.model
        self.by_name = check.list_names  # the check fills it as it finds the lists
        self._origins: list[tuple[str, Span, str, str]] = []
        self._binds: list[tuple[str, BindFact]] = []

    def copy_of(self, frame: Frame, expr: Expr, depth: int = 0) -> tuple[str, HandoffList] | None:
        """Whether ``expr`` in ``frame`` is a whole copy of a handoff list, and whose."""
        if depth > MAX_DEPTH:
            return None
        kind = expr[0]
        if kind == "call" and expr[1] in (("name", "list"), ("name", "tuple")) and expr[2]:
            return self.copy_of(frame, expr[2][0], depth + 1)
        if kind == "name":
            name = expr[1]
            found = self.check.named_copy(name)
            if found is not None:
                return found
            if name in self.check.params_of(frame.fn):
                arg = frame.arg(name)
                if arg is not None and frame.ctx is not None:
                    return self.copy_of(frame.ctx.caller, arg, depth + 1)
                return None
            binds = self.check.binds_of(frame.fn).get(name, [])
            if (
                len(binds) == 1
                and binds[0].names == (name,)
                and binds[0].value[0] in ("name", "attr", "call")
            ):
                return self.copy_of(frame, binds[0].value, depth + 1)
            return None
        if kind == "attr":
            found = self.check.named_copy(expr[2])
            if found is not None:
                return found
            lst = self.by_name.get(expr[2])
            if lst is not None and any(self.check.peer_word(w) for w in identifiers(expr[1])):
                return ("peer", lst)
        return None

    def _mentions_copy(self, frame: Frame, expr: Expr) -> bool:
        return any(
            node[0] in ("name", "attr") and self.copy_of(frame, node) is not None
            for node in nodes(expr)
        )

    def value(self, frame: Frame, expr: Expr, at: Span, sc: Scenario, depth: int = 0) -> Lin | None:
        """The value of ``expr`` at ``at`` in ``frame`` when the lists have lengths ``sc``."""
        if depth > MAX_DEPTH:
            return None
        kind = expr[0]
        d = depth + 1
        if kind == "const":
            v = expr[1]
            if isinstance(v, int):  # bool included
                return Lin.of(int(v))
            if isinstance(v, float):
                return Lin.of(Fraction(v))
            return None
        if kind == "binop":
            left = self.value(frame, expr[2], at, sc, d)
            right = self.value(frame, expr[3], at, sc, d)
            if left is None or right is None:
                return None
            return arith(expr[1], left, right)
        if kind == "neg":
            inner = self.value(frame, expr[1], at, sc, d)
            return inner.scaled(Fraction(-1)) if inner is not None else None
        if kind == "name":
            return self._name_value(frame, expr[1], at, sc, d)
        if kind == "call":
            return self._call_value(frame, expr, at, sc, d)
        if kind in ("attr", "subscript"):
            if self._mentions_copy(frame, expr):
                return None
            return Lin.symbol(f"{frame.fn.qualname}:{expr!r}")
        return None

    def _name_value(self, frame: Frame, name: str, at: Span, sc: Scenario, d: int) -> Lin | None:
        fn = frame.fn
        if self.copy_of(frame, ("name", name)) is not None:
            return None
        binds = self._reaching(frame, name, at, d)
        if binds:
            values = set()
            for bind in binds:
                values.add(self._bind_value(frame, bind, name, sc, d))
            return values.pop() if len(values) == 1 else None
        if name in self.check.params_of(fn):
            arg = frame.arg(name)
            if arg is not None and frame.ctx is not None:
                return self.value(frame.ctx.caller, arg, frame.ctx.call.span, sc, d)
            return Lin.symbol(f"{fn.qualname}:param:{name}")
        return Lin.symbol(f"{fn.qualname}:name:{name}")

    def _bind_value(
        self, frame: Frame, bind: BindFact, name: str, sc: Scenario, d: int
    ) -> Lin | None:
        value = bind.value
        if len(bind.names) > 1:
            if value[0] != "seq" or len(value[1]) != len(bind.names):
                return None
            value = value[1][bind.names.index(name)]
        self._binds.append((frame.fn.qualname, bind))
        try:
            return self.value(frame, value, bind.span, sc, d)
        finally:
            self._binds.pop()

    def _reaching(self, frame: Frame, name: str, at: Span, d: int) -> list[BindFact]:
        """Assignments of ``name`` that may reach ``at`` on the grown run's path.

        The last one on every path to ``at`` (its guards a prefix of those at
        ``at``), and later ones in branches the grown lengths do not rule out.
        """
        before = [b for b in self.check.binds_of(frame.fn).get(name, []) if b.span[:2] < at[:2]]
        if not before:
            return []
        here = guards_at(frame.fn, at)
        dominating = None
        for bind in before:
            if here[: len(bind.guards)] == bind.guards:
                dominating = bind
        later = [b for b in before if dominating is None or b.span[:2] > dominating.span[:2]]
        # The path is the one taken with the grown lengths, whatever ``sc`` is:
        # the agreeing run asks what the same code computes with other lengths.
        saved = self._origins
        self._origins = []
        try:
            live = [
                b
                for b in later
                if self.reachable(frame, b.guards, b.span, PEER_GROWS, d) is not False
            ]
        finally:
            self._origins = saved
        if dominating is not None:
            live.insert(0, dominating)
        return live

    def _call_value(self, frame: Frame, expr: Expr, at: Span, sc: Scenario, d: int) -> Lin | None:
        func, args = expr[1], expr[2]
        if func == ("name", "len") and len(args) == 1:
            copy = self.copy_of(frame, args[0])
            if copy is not None:
                kind = copy[0]
                here = frame.fn.qualname
                if not self._binds or self._binds[-1][0] != here:
                    self._origins.append((here, at, text(expr), kind))  # a helper's return
                if self._binds:
                    qual, bind = self._binds[-1]
                    source = f"{' = '.join(bind.names)} = {text(bind.value)}"
                    self._origins.append((qual, bind.span, source, kind))
                return Lin.of(sc[0] if kind == "peer" else sc[1])
            if self._mentions_copy(frame, args[0]):
                return None
            return Lin.symbol(f"{frame.fn.qualname}:len:{args[0]!r}")
        if func in (("name", "int"), ("name", "round")) and len(args) == 1:
            inner = self.value(frame, args[0], at, sc, d)
            if inner is None or not inner.known:
                return None
            return Lin.of(int(inner.const) if func[1] == "int" else round(inner.const))
        if func in (("name", "min"), ("name", "max")) and len(args) > 1:
            values = [self.value(frame, a, at, sc, d) for a in args]
            if any(v is None or not v.known for v in values):
                return None
            consts = [v.const for v in values if v is not None]
            return Lin.of(min(consts) if func[1] == "min" else max(consts))
        targets = self.model.call_targets(frame.fn, func)
        if len(targets) == 1:
            helper = self.model.functions[targets[0]]
            returned = {r.value for r in helper.returns if r.value is not None}
            if len(returned) == 1:
                call = CallFact(func, args, expr[3], at, (), None)
                bound = bind_arguments(helper, func, args, expr[3])
                helper_frame = Frame(helper, Context(frame, call, bound))
                ret = next(r for r in helper.returns if r.value is not None)
                return self.value(helper_frame, returned.pop(), ret.span, sc, d)
            return None
        if self._mentions_copy(frame, expr):
            return None
        return Lin.symbol(f"{frame.fn.qualname}:{expr!r}")

    def truth(self, frame: Frame, expr: Expr, at: Span, sc: Scenario, d: int = 0) -> bool | None:
        """Truth of a condition under the scenario; None when it cannot be told."""
        if d > MAX_DEPTH:
            return None
        kind = expr[0]
        if kind == "not":
            inner = self.truth(frame, expr[1], at, sc, d + 1)
            return None if inner is None else not inner
        if kind in ("and", "or"):
            results = [self.truth(frame, e, at, sc, d + 1) for e in expr[1]]
            stop = kind == "or"
            if stop in results:
                return stop
            return None if None in results else not stop
        if kind == "cmp":
            left = self.value(frame, expr[1], at, sc, d + 1)
            result: bool | None = True
            for op, right_expr in zip(expr[2], expr[3], strict=False):
                right = self.value(frame, right_expr, at, sc, d + 1)
                if left is None or right is None:
                    return None
                outcome = compare(op, left, right)
                if outcome is None:
                    return None
                if not outcome:
                    result = False
                left = right
            return result
        value = self.value(frame, expr, at, sc, d + 1)
        if value is None or not value.known:
            return None
        return bool(value.const)

    def reachable(
        self, frame: Frame, guards: Guards, at: Span, sc: Scenario, d: int = 0
    ) -> bool | None:
        """False when a guard is false under the scenario; the call sites binding the frame too."""
        for expr, polarity in guards:
            outcome = self.truth(frame, expr, at, sc, d + 1)
            if outcome is not None and outcome != polarity:
                return False
        if frame.ctx is not None and d < MAX_DEPTH:
            ctx = frame.ctx
            return self.reachable(ctx.caller, ctx.call.guards, ctx.call.span, sc, d + 1)
        return None

    def moves(self, frame: Frame, site: IndexFact) -> list[Move]:
        index = site.index
        bounds = [index[1], index[2]] if index[0] == "slice" else [index]
        out: list[Move] = []
        if self.reachable(frame, site.guards, site.span, PEER_GROWS) is False:
            return out
        if self._growth_rejected(frame, site.span, site.guards):
            return out
        for position, bound in enumerate(bounds):
            if bound == ("const", None) or bound[0] == "const":
                continue
            agreed = self.value(frame, bound, site.span, AGREE)
            if agreed is None:
                continue
            self._origins = []
            moved = self.value(frame, bound, site.span, PEER_GROWS)
            if moved is None or moved == agreed:
                continue
            whole = position == 1 and index[0] == "slice"
            if whole and moved == Lin.of(PEER_GROWS[0]) and agreed == Lin.of(AGREE[0]):
                continue  # ``dst[a:len(dst)]``: up to the end, whatever the length
            origins = [o[:3] for o in self._origins if o[3] == "peer"]
            if origins:
                out.append(Move(bound, tuple(dict.fromkeys(origins))))
        return out

    def _growth_rejected(self, frame: Frame, at: Span, guards: Guards, d: int = 0) -> bool:
        """A raise or assert before ``at`` fails when the peer's list has grown.

        An equality test on a count taken from the peer's length (``!=`` raises),
        or an upper limit on it (``count > limit`` raises), against a value that
        does not depend on that length: the code then fails loudly instead of
        computing offsets from a grown list. Also checked at the call sites that
        bind the frame.
        """
        fn = frame.fn
        rejecting: list[tuple[Expr, bool]] = []
        for span, raise_guards in fn.raises:
            if span[:2] < at[:2] and raise_guards:
                cond, polarity = raise_guards[-1]
                prefix = raise_guards[:-1]
                if guards[: len(prefix)] == prefix and (cond, not polarity) in guards:
                    rejecting.append((cond, polarity))
        for test, span, assert_guards in fn.asserts:
            if span[:2] < at[:2] and guards[: len(assert_guards)] == assert_guards:
                rejecting.append((test, False))
        for cond, sense in rejecting:
            for cmp, raises_when in comparisons_with_sense(cond, sense):
                if self._rejects(frame, cmp, raises_when, at):
                    return True
        if frame.ctx is not None and d < MAX_DEPTH:
            ctx = frame.ctx
            return self._growth_rejected(ctx.caller, ctx.call.span, ctx.call.guards, d + 1)
        return False

    def _rejects(self, frame: Frame, cmp: Expr, raises_when: bool, at: Span) -> bool:
        op = cmp[2][0] if raises_when else NEGATED_OP.get(cmp[2][0], "")
        left, right = cmp[1], cmp[3][0]
        growth = []
        for side in (left, right):
            agreed = self.value(frame, side, at, AGREE)
            grown = self.value(frame, side, at, PEER_GROWS)
            if agreed is None or grown is None:
                return False
            diff = grown.plus(agreed, -1)
            if not diff.known:
                return False
            growth.append(diff.const)
        if op == "!=":
            return (growth[0] != 0) != (growth[1] != 0)
        if op in (">", ">="):
            return growth[0] > 0 and growth[1] == 0
        if op in ("<", "<="):
            return growth[1] > 0 and growth[0] == 0
        return False
