"""PDL301 soft-handoff-precondition: a function reached from a decode entry point
reads the handoff payload softly and goes on without it.

A *soft read* is ``payload = request.get(KEY)`` (or ``... or {}``, or with a
default, or a walrus in a test) for a payload key (``prefill_result``,
``disaggregated_params``, ``bootstrap_info``; a pack's ``[handoff] payloads``).
It goes on without the payload when the handoff work is skipped while it is
missing: a call of the analysed code or a store runs only under a test that the
payload (or a value taken from it) is there, a value is taken out of it only then
into a local that holds a default otherwise, or the read falls back to a default.
It is clean when the payload's absence is loud: a ``raise`` or a ``return`` under
a test that it (or a value taken from it) is missing, or that the request lacks it
(``not request.get(KEY)``, ``KEY not in request``), in the function or in one of
its callers on the path from the entry point, or a call of a function that raises
when what it is given is missing (``require_prefill_result(request)``; a pack's
``[handoff] preconditions``). A read under a test that the mode is not decode is
not on the decode path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from pdlint.facts.exprs import identifiers, nodes, text
from pdlint.facts.types import CallFact, Expr, FunctionFacts, Guards, Span
from pdlint.findings import Finding, Related, Step
from pdlint.model.binding import bind_arguments
from pdlint.model.entries import is_decode_mode
from pdlint.model.locations import location, short_name
from pdlint.model.names import Model


@dataclass(frozen=True)
class Skipped:
    """What runs only when the payload is there: where, and as the message says it."""

    span: Span
    shown: str


@dataclass(frozen=True)
class SoftRead:
    """``name = receiver.get(key)`` in a function, and whether it falls back."""

    call: CallFact
    name: str
    key: str
    fallback: bool


class SoftReads:
    """Finds soft reads of the handoff payload on the decode path."""

    def __init__(self, model: Model, payloads: tuple[str, ...], preconditions: set[str]) -> None:
        self.model = model
        self.payloads = payloads
        self.preconditions = preconditions
        self._requires: dict[tuple[str, frozenset[str]], bool] = {}

    def findings(
        self, fn: FunctionFacts, steps: Callable[[], list[Step]], callers: list[FunctionFacts]
    ) -> Iterator[Finding]:
        """The findings of ``fn``, reached by the path ``steps`` through ``callers``
        (nearest first). A read already made softly by a caller is reported there."""
        reads = soft_reads(fn, self.payloads)
        # a key read out of a payload already read here (``prefill_result.get(
        # "disaggregated_params")``) is that payload's read
        inner = {n for read in reads for n in _derived(fn, read.name)}
        for read in reads:
            receiver = read.call.func[1]
            if receiver[0] == "name" and receiver[1] in inner:
                continue
            skipped = self._soft(fn, read, callers)
            if skipped is None:
                continue
            if any(
                self._soft(caller, earlier, callers[i + 1 :]) is not None
                for i, caller in enumerate(callers)
                for earlier in soft_reads(caller, (read.key,))
            ):
                continue
            yield self._finding(fn, read, skipped[0], steps)

    def _soft(
        self, fn: FunctionFacts, read: SoftRead, callers: list[FunctionFacts]
    ) -> tuple[Skipped | None] | None:
        """``(skipped work,)`` when ``read`` goes on without the payload on the decode
        path (the work None: a fallback); None when it does not."""
        if _excludes_decode(read.call.guards):
            return None
        derived = _derived(fn, read.name)
        receiver = read.call.func[1]
        given = {receiver[1]} if receiver[0] == "name" else set()
        here = Holders(frozenset(derived), frozenset(given), self.payloads)
        if _loud(fn, here) or any(
            self._requires_payload(f, given, derived if f is fn else set()) for f in (fn, *callers)
        ):
            return None
        if self._loud_caller(fn, derived, callers):
            return None
        skipped = self._skipped_work(fn, read, derived)
        if skipped is None and not read.fallback:
            return None
        return (skipped,)

    def _loud_caller(
        self, fn: FunctionFacts, derived: set[str], callers: list[FunctionFacts]
    ) -> bool:
        """Whether a caller on the path raises (or returns) when what ``fn`` returns
        from the payload is missing (``params = self.setup(request)`` ... ``if decode
        and params is None: raise``)."""
        callee, taken = fn, derived
        for caller in callers:
            names = self._returned(caller, callee, taken)
            if not names:
                return False
            taken = set()
            for name in names:
                taken |= _derived(caller, name)
            if _loud(caller, Holders(frozenset(taken), frozenset(), self.payloads)):
                return True
            callee = caller
        return False

    def _returned(self, caller: FunctionFacts, callee: FunctionFacts, taken: set[str]) -> set[str]:
        """The locals of ``caller`` holding a value ``callee`` returns from ``taken`` (its
        locals holding the payload or a value taken from it), a tuple's item included."""
        out = set()
        for name, value in caller.assigns:
            index: int | None = None
            if value[0] == "item" and value[1][0] == "call" and isinstance(value[2], int):
                call, index = value[1], value[2]
            elif value[0] == "call":
                call = value
            else:
                continue
            if callee.qualname not in self.model.call_targets(caller, call[1]):
                continue
            for ret in callee.returns:
                returned = ret.value
                if returned is not None and index is not None and returned[0] == "seq":
                    returned = returned[1][index] if index < len(returned[1]) else None
                if returned is not None and _mentions(returned, taken):
                    out.add(name)
                    break
        return out

    def _skipped_work(self, fn: FunctionFacts, read: SoftRead, derived: set[str]) -> Skipped | None:
        """A call of the analysed code, after the read, that runs only when the payload
        (or a value taken from it) is there; or a value taken from the payload only then
        (``params = payload["params"]``, ``payload.get(...)``) into a local that holds a
        default otherwise; or a store made only then."""
        # the read itself in a test: ``if (params := request.get(KEY)) is not None``
        read_expr = ("call", read.call.func, read.call.args, read.call.kwargs)
        for names in ({read.name}, derived):
            for call in fn.calls:
                if call.span <= read.call.span:
                    continue
                if not any(p and _mentions(c, names, read_expr) for c, p in call.guards):
                    continue
                if self.model.call_targets(fn, call.func):
                    shown = f"`{text(call.func, brief=True)}(...)` runs only when it is there"
                    return Skipped(call.span, shown)
        for bind in fn.binds:
            if bind.span <= read.call.span or len(bind.names) != 1:
                continue
            if not any(p and _mentions(c, {read.name}, read_expr) for c, p in bind.guards):
                continue
            if not _taken_from(bind.value, read.name):
                continue
            local = bind.names[0]
            # the local holds something else on the other paths: a default
            if sum(1 for name, _ in fn.assigns if name == local) > 1:
                return Skipped(bind.span, f"`{local}` takes it only when it is there")
        for store in fn.stores:
            # an argument or a field set only then (``kwargs["params"] = ...``, later
            # ``engine.generate(**kwargs)``)
            if store.span <= read.call.span:
                continue
            if any(p and _mentions(c, derived, read_expr) for c, p in store.guards):
                shown = f"`{text(store.target, brief=True)}` is set only when it is there"
                return Skipped(store.span, shown)
        return None

    def _requires_payload(self, fn: FunctionFacts, request: set[str], payload: set[str]) -> bool:
        """Whether ``fn`` calls a precondition: a pack's, or a function that raises when
        the payload is missing from the request it is given (a name of ``request``), or
        when the payload it is given (a name of ``payload``) is missing."""
        for call in fn.calls:
            for target in self.model.call_targets(fn, call.func):
                if target in self.preconditions:
                    return True
                callee = self.model.functions[target]
                bound = bind_arguments(callee, call.func, call.args)
                names = [(p, arg[1]) for p, arg in bound if arg[0] == "name"]
                given = frozenset(p for p, arg in names if arg in payload)
                requests = frozenset(p for p, arg in names if arg in request)
                if (requests or given) and self._raises_when_missing(target, given, requests):
                    return True
        return False

    def _raises_when_missing(
        self, qual: str, params: frozenset[str], requests: frozenset[str]
    ) -> bool:
        """Whether ``qual`` raises under a test that the payload is missing: a value
        taken from ``params`` (the payload given), from a soft read of it, or held in a
        local named as its key (``prefill_result = extract_prefill_result(request)``),
        or a test that the request it is given (``requests``) lacks it."""
        key = (qual, params | requests)
        if key not in self._requires:
            callee = self.model.functions[qual]
            names = set(params) | {r.name for r in soft_reads(callee, self.payloads)}
            names |= {name for name, _ in callee.assigns if name in self.payloads}
            derived: set[str] = set()
            for name in names:
                derived |= _derived(callee, name)
            holders = Holders(frozenset(derived), requests, self.payloads)
            self._requires[key] = any(_raised_when_missing(g, holders) for _, g in callee.raises)
        return self._requires[key]

    def _finding(
        self,
        fn: FunctionFacts,
        read: SoftRead,
        skipped: Skipped | None,
        path_to: Callable[[], list[Step]],
    ) -> Finding:
        model = self.model
        here = location(model, fn.qualname, read.call.span)
        shown = text(("call", read.call.func, read.call.args, read.call.kwargs))
        steps = path_to()
        entry = steps[0].function if steps else fn.qualname
        if skipped is not None:
            goes_on = skipped.shown
        else:
            goes_on = "it falls back to a default"
        message = (
            f"`{shown}` reads the handoff payload softly on the decode path from "
            f"`{short_name(entry)}`, and the function goes on without it ({goes_on}): a "
            f"decode request with no `{read.key}` runs as if it had none; raise at once "
            f"when it is missing in decode mode (a precondition such as "
            f"`require_{read.key}(request)`)"
        )
        related: list[Related] = []
        if skipped is not None:
            related.append(
                Related(
                    location(model, fn.qualname, skipped.span),
                    f"skipped when `{read.key}` is missing",
                )
            )
        path = (*steps, Step(here, fn.qualname, f"reads `{read.key}` softly"))
        return Finding(
            code="PDL301",
            message=message,
            location=here,
            related=tuple(related),
            path=path,
            member=read.key,
            key=("PDL301", fn.qualname, read.key),
            summary=f"`{read.key}` is read softly on the decode path, which goes on without it",
        )


def soft_reads(fn: FunctionFacts, payloads: tuple[str, ...]) -> list[SoftRead]:
    """The reads ``name = x.get(KEY)`` (``or`` a fallback, or with a default) in ``fn``."""
    out = []
    for call in fn.calls:
        func, args = call.func, call.args
        if func[0] != "attr" or func[2] != "get" or not args or args[0][0] != "const":
            continue
        key = args[0][1]
        if key not in payloads:
            continue
        expr = ("call", func, args, call.kwargs)
        for name, value in fn.assigns:
            if value == expr:
                default = args[1] if len(args) > 1 else ("const", None)
                out.append(SoftRead(call, name, str(key), default != ("const", None)))
            elif value[0] == "or" and value[1][0] == expr:
                out.append(SoftRead(call, name, str(key), True))
    return out


def _derived(fn: FunctionFacts, name: str) -> set[str]:
    """``name`` and the locals assigned from it, directly or not."""
    found = {name}
    changed = True
    while changed:
        changed = False
        for local, value in fn.assigns:
            if local not in found and found & set(identifiers(value)):
                found.add(local)
                changed = True
    return found


def _taken_from(value: Expr, name: str) -> bool:
    """``value`` reads from the local ``name``: ``name[k]``, ``name.get(k)``, ``name.x``."""
    payload = ("name", name)
    if value[0] in ("subscript", "attr"):
        return value[1] == payload
    return value[0] == "call" and value[1][0] == "attr" and value[1][1] == payload


def _mentions(cond: Expr, names: set[str], read: Expr | None = None) -> bool:
    """Whether ``cond`` reads one of the locals ``names`` (or the expression ``read``)."""
    return any((n[0] == "name" and n[1] in names) or n == read for n in nodes(cond))


@dataclass(frozen=True)
class Holders:
    """What holds the payload in a function: locals holding it (or a value taken from
    it), and names of the request it is read from under one of its ``keys``."""

    names: frozenset[str]
    requests: frozenset[str]
    keys: tuple[str, ...]

    def holds(self, expr: Expr) -> bool:
        """``x`` for a local holding the payload, ``request.get(KEY)`` or
        ``request[KEY]`` for the request."""
        if expr[0] == "name":
            return expr[1] in self.names
        if expr[0] == "call" and expr[1][0] == "attr" and expr[1][2] == "get" and expr[2]:
            return self._request_key(expr[1][1], expr[2][0])
        if expr[0] == "subscript":
            return self._request_key(expr[1], expr[2])
        return False

    def lacked(self, expr: Expr) -> bool | None:
        """For ``KEY in request``: False (True for ``not in``); None for another test."""
        if expr[0] != "cmp" or len(expr[2]) != 1 or expr[2][0] not in ("in", "not in"):
            return None
        if not self._request_key(expr[3][0], expr[1]):
            return None
        return expr[2][0] == "not in"

    def _request_key(self, request: Expr, key: Expr) -> bool:
        return (
            request[0] == "name"
            and request[1] in self.requests
            and key[0] == "const"
            and key[1] in self.keys
        )

    def only(self, cond: Expr) -> bool:
        """Whether ``cond`` tests the payload and nothing else."""
        return set(identifiers(self._without_reads(cond))) <= self.names

    def _without_reads(self, expr: Expr) -> Expr:
        if expr and isinstance(expr[0], str) and self.holds(expr):
            return ("const", None)
        return tuple(self._without_reads(p) if isinstance(p, tuple) else p for p in expr)


def _absent_test(cond: Expr, polarity: bool, holders: Holders) -> bool:
    """Whether a guard holds when the payload is missing (``not x``, ``x is None``,
    ``not request.get(KEY)``, ``KEY not in request``)."""
    while cond[0] == "not":
        cond, polarity = cond[1], not polarity
    if holders.holds(cond):
        return not polarity
    lacked = holders.lacked(cond)
    if lacked is not None:
        return polarity == lacked
    if cond[0] == "cmp" and len(cond[2]) == 1 and ("const", None) in (cond[1], cond[3][0]):
        side = cond[3][0] if cond[1] == ("const", None) else cond[1]
        if holders.holds(side):
            return polarity == (cond[2][0] in ("is", "=="))
    if cond[0] in ("and", "or") and polarity == (cond[0] == "and"):
        return any(_absent_test(part, polarity, holders) for part in cond[1])
    return False


def _loud(fn: FunctionFacts, holders: Holders) -> bool:
    """A raise or a return of ``fn`` under a test that the payload is missing."""
    guards: list[Guards] = [g for _, g in fn.raises]
    guards += [r.guards for r in fn.returns if not r.implicit]
    return any(_raised_when_missing(found, holders) for found in guards)


def _raised_when_missing(guards: Guards, holders: Holders) -> bool:
    """Whether code under ``guards`` runs whenever the payload (``names``) is missing in
    decode mode: one guard tests that it is missing, and the others that must hold test
    the mode or the payload only (a raise needing one more setting is not a
    precondition; a test that must fail is most often an earlier exit's)."""
    found = False
    for cond, polarity in guards:
        if _absent_test(cond, polarity, holders):
            found = True
        elif polarity and not (
            is_decode_mode(cond, polarity)
            or (_other_mode(cond) and not polarity)
            or holders.only(cond)
        ):
            return False
    return found


def _excludes_decode(guards: Guards) -> bool:
    """Whether code under ``guards`` runs only in a mode other than decode: under a
    decode test that fails, or a test for another disaggregation mode."""
    for cond, polarity in guards:
        if is_decode_mode(cond, not polarity):
            return True
        if polarity and _other_mode(cond):
            return True
    return False


def _other_mode(cond: Expr) -> bool:
    """``mode == Mode.PREFILL`` (a name with ``disagg`` or ``mode``, another member)."""
    if cond[0] != "cmp" or len(cond[2]) != 1 or cond[2][0] not in ("==", "is"):
        return False
    shown = " ".join(text(s, brief=True).lower() for s in (cond[1], cond[3][0]))
    if "disagg" not in shown:
        return False
    members = [n[2] for s in (cond[1], cond[3][0]) for n in nodes(s) if n[0] == "attr"]
    return bool(members) and members[-1].upper() in ("PREFILL", "AGGREGATED", "ENCODE", "NULL")
