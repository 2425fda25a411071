"""Relay state kept in a table keyed by request id, and relay state a connector's
scheduler side stores for its worker side to read (issue 31): each on a package
written otherwise than its fixture (fixtures/relay/keyed_requests, split_connector,
shipped_entries), with what must stay silent beside it."""

from __future__ import annotations

import textwrap
from pathlib import Path

from pdlint_helpers import package_findings

# a transfer kind with a plan builder that has nothing for SPOOL
PLANS = """
    import enum


    class Kind(enum.Enum):
        WIRE = 1
        DISK = 2
        SPOOL = 3


    class Plan:
        def __init__(self, host):
            self.host = host
            self.size = 4


    def plan_for(kind: Kind, params):
        if kind is Kind.WIRE:
            return Plan(params["host"])
        if kind is Kind.DISK:
            return Plan("")
        return None
"""


def test_entries_of_a_table_keyed_by_request_id_are_the_state(tmp_path: Path) -> None:
    # the entries of ``_plans`` are built per kind: every read of one is a consumer
    # (a value a loop over a copy of the table gives, an entry popped, a subscript),
    # but where a None test of the entry or of a local holding it guards the read
    found = package_findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/plans.py": PLANS,
            "eng/loop.py": """
                from eng.plans import Kind, plan_for


                class Decoder:
                    def __init__(self, kind: Kind):
                        self.kind = kind
                        self._plans = {}
                        self.out = []

                    def event_loop_disagg_decode(self, handoffs):
                        for rid, params in handoffs:
                            self._plans[rid] = plan_for(self.kind, params)
                        self._send(handoffs)

                    def _send(self, handoffs):
                        for plan in list(self._plans.values()):
                            self.out.append(plan.host)
                        for rid, _ in handoffs:
                            if self._plans[rid] is not None:
                                self.out.append(self._plans[rid].size)
                        for rid, plan in sorted(self._plans.items()):
                            if plan is None:
                                continue
                            self.out.append(plan.size)
                        for rid, _ in handoffs:
                            self._report(rid)
                            self._finish(rid)

                    def _report(self, rid):
                        self.out.append(self._plans[rid].host)

                    def _finish(self, rid):
                        done = self._plans.pop(rid)
                        self.out.append(done.size)
            """,
        },
    )
    assert found == [
        "PDL001 eng/plans.py:16 SPOOL",
        "PDL101 eng/loop.py:17 SPOOL",
        "PDL101 eng/loop.py:30 SPOOL",
        "PDL101 eng/loop.py:34 SPOOL",
    ]


def test_an_entry_at_a_constant_place_is_no_keyed_state(tmp_path: Path) -> None:
    # ``slots[0]`` and ``slots[-1]`` are places, not entries under a request's key:
    # no relay stores the entries, so their reads say nothing
    found = package_findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/plans.py": PLANS,
            "eng/loop.py": """
                from eng.plans import Kind, plan_for


                class Decoder:
                    def __init__(self, kind: Kind):
                        self.kind = kind
                        self.slots = [None, None]

                    def event_loop_disagg_decode(self, params, i):
                        self.slots[0] = plan_for(self.kind, params)
                        self.slots[-1] = plan_for(self.kind, params)
                        return self.slots[i].host
            """,
        },
    )
    assert found == []


def _connector(
    scheduler_side: str, worker_side: str, extra: str = "", methods: str = ""
) -> dict[str, str]:
    """A package with one connector class: its scheduler side's and worker side's
    methods (``update_state_after_alloc`` and ``start_load_kv``, each an entry point),
    other ``methods`` of it, and ``extra`` code after it."""
    return {
        "conn/__init__.py": "",
        "conn/plans.py": PLANS,
        "conn/connector.py": f"""
            from conn.plans import Kind, plan_for


            class Meta:
                def __init__(self, pending):
                    self.pending = pending


            class Probe:
                pass


            class WireConnector:
                def __init__(self, kind: Kind):
                    self.kind = kind
                    self._pending = {{}}
                    self._meta = None
                    self.done = []

                def get_num_new_matched_tokens(self, request, computed):
                    return len(request.tokens) - computed, True

                def update_state_after_alloc(self, request, blocks, count):
{_indented(scheduler_side, 20)}

                def build_connector_meta(self, output):
                    return Meta(list(self._pending.values()))

                def bind_connector_metadata(self, meta):
                    self._meta = meta

                def start_load_kv(self, context):
{_indented(worker_side, 20)}

{_indented(methods, 16)}


{_indented(extra, 12)}
        """,
    }


def _indented(code: str, width: int) -> str:
    return textwrap.indent(textwrap.dedent(code).strip(), " " * width)


def test_a_request_kept_by_the_scheduler_side_reaches_the_worker_side(tmp_path: Path) -> None:
    # the relay (reached from update_state_after_alloc) and the consumer (reached
    # from start_load_kv) share no entry point: the request holding the plan is kept
    # by the connector and shipped in its metadata; DISK reads the plan in its own
    # branch, built for it
    found = package_findings(
        tmp_path,
        _connector(
            """
            request.plan = plan_for(self.kind, request.params)
            self._pending[request.rid] = request
            """,
            """
            for request in self._meta.pending:
                if self.kind is Kind.DISK:
                    self.done.append(request.plan.size)
                else:
                    self.done.append(request.plan.host)
            """,
        ),
    )
    assert found == ["PDL001 conn/plans.py:16 SPOOL", "PDL101 conn/connector.py:38 SPOOL"]


def test_a_helper_stores_the_state_on_a_request_its_caller_keeps(tmp_path: Path) -> None:
    # the relay is a helper given the request; the scheduler side's method calling it
    # keeps the request in its table, shipped to the worker side
    found = package_findings(
        tmp_path,
        _connector(
            """
            self._attach(request)
            self._pending[request.rid] = request
            """,
            """
            for request in self._meta.pending:
                self.done.append(request.plan.host)
            """,
            methods="""
                def _attach(self, request):
                    request.plan = plan_for(self.kind, request.params)
            """,
        ),
    )
    assert found == ["PDL001 conn/plans.py:16 SPOOL", "PDL101 conn/connector.py:35 SPOOL"]


def test_a_state_the_relay_does_not_keep_stays_on_its_side(tmp_path: Path) -> None:
    # the plan is stored on an object the scheduler side drops at the end of the
    # call: no worker side can read it (the gap is still a PDL001)
    found = package_findings(
        tmp_path,
        _connector(
            """
            probe = Probe()
            probe.plan = plan_for(self.kind, request.params)
            self._pending[request.rid] = request
            """,
            """
            for request in self._meta.pending:
                self.done.append(request.plan.host)
            """,
        ),
    )
    assert found == ["PDL001 conn/plans.py:16 SPOOL"]


def test_another_connector_does_not_read_the_state(tmp_path: Path) -> None:
    # a second connector class reads an attribute of the same name on its worker
    # side: the two classes share no connector, their entry points no state
    files = _connector(
        """
        request.plan = plan_for(self.kind, request.params)
        self._pending[request.rid] = request
        """,
        "return None",
        """
            class CacheConnector:
                def get_num_new_matched_tokens(self, request, computed):
                    return 0, False

                def start_load_kv(self, context):
                    for request in context.requests:
                        print(request.plan.host)
        """,
    )
    assert package_findings(tmp_path, files) == ["PDL001 conn/plans.py:16 SPOOL"]


def test_two_decode_loops_of_one_engine_share_no_state(tmp_path: Path) -> None:
    # two decode loops of one scheduler are alternatives, not the two sides of a
    # connector: a relay reached from one counts for nothing the other reaches
    found = package_findings(
        tmp_path,
        {
            "eng/__init__.py": "",
            "eng/plans.py": PLANS,
            "eng/scheduler.py": """
                from eng.plans import Kind, plan_for


                class Scheduler:
                    def __init__(self, kind: Kind):
                        self.kind = kind
                        self.running = []

                    def event_loop_normal_disagg_decode(self, request):
                        request.plan = plan_for(self.kind, request.params)
                        self.running.append(request)

                    def event_loop_overlap_disagg_decode(self):
                        for request in self.running:
                            print(request.plan.host)
            """,
        },
    )
    assert found == ["PDL001 eng/plans.py:16 SPOOL"]


def test_the_metadata_field_holds_the_shipped_table(tmp_path: Path) -> None:
    # the scheduler side keeps plans by request id and ships a copy of the table as
    # the metadata's ``pending`` field (a positional argument of its constructor); the
    # worker side reads its entries, but a table of another class's is no state
    found = package_findings(
        tmp_path,
        {
            "conn/__init__.py": "",
            "conn/plans.py": PLANS,
            "conn/connector.py": """
                from conn.plans import Kind, plan_for


                class Meta:
                    def __init__(self, pending, cached):
                        self.pending = pending
                        self.cached = cached


                class Store:
                    def __init__(self):
                        self._pending = {}


                class SplitConnector:
                    def __init__(self, kind: Kind):
                        self.kind = kind
                        self.store = Store()
                        self._pending = {}
                        self._meta = None

                    def update_state_after_alloc(self, request, blocks, count):
                        self._pending[request.rid] = plan_for(self.kind, request.params)

                    def build_connector_meta(self, output):
                        return Meta(dict(self._pending), self.store._pending)

                    def bind_connector_metadata(self, meta):
                        self._meta = meta

                    def start_load_kv(self, context):
                        for rid, plan in self._meta.pending.items():
                            print(rid, plan.host)
                        for rid, plan in self._meta.cached.items():
                            print(rid, plan.host)

                    def wait_for_layer_load(self, name):
                        return None
            """,
        },
    )
    assert found == ["PDL001 conn/plans.py:16 SPOOL", "PDL101 conn/connector.py:33 SPOOL"]
