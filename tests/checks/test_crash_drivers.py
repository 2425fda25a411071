"""The gaps the idiom fixtures expect are real: each fixture is run with CPython
(a small driver per fixture), and the member of each expected PDL101 (a variant
member), PDL102 (a batch mode), PDL104 or PDL105 crashes on the expected line with the state
None, while the members with state run through."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest
from pdlint_helpers import FIXTURES, fixture

# fixture -> (driver, members that must run through); the driver reads the member's
# name from argv[1]
DRIVERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "await_handoff": (
        """
        import asyncio, sys
        from aio_engine.drafting import Drafter
        from aio_engine.server import DecodeServer
        handoff = {"last_token": 7, "draft_tokens": [1, 2]}
        server = DecodeServer(Drafter[sys.argv[1]], [handoff])
        asyncio.run(server.event_loop_disagg_decode())
        """,
        ("TREE", "CHAIN"),
    ),
    "branch_attribute": (
        """
        import sys
        from branch_engine.drafting import ProposalKind
        from branch_engine.worker import DecodeWorker
        worker = DecodeWorker(ProposalKind[sys.argv[1]])
        worker.event_loop_disagg_decode([{"last_token": 3, "draft": [1]}])
        """,
        ("TREE", "CHAIN", "OFF"),
    ),
    "class_registry": (
        # a warm-up step (the mode WARMUP) with TREE on, else a handoff of the member
        """
        import sys
        from podactors.replica import DecodeReplica
        handoff = [{"rid": "a", "draft": [4, 5], "prompt": [1, 2, 3]}]
        if sys.argv[1] == "WARMUP":
            DecodeReplica.spawn("tree").call("warm", 2)
        else:
            DecodeReplica.spawn(sys.argv[1].lower()).call("accept_transfer", handoff)
        """,
        ("TREE", "CHAIN", "OFF"),
    ),
    "ray_actor": (
        # ``ray`` stood in for by a synchronous module of the same call shape
        """
        import sys, types
        ray = types.ModuleType("ray")
        class _Method:
            def __init__(self, bound):
                self.bound = bound
            def remote(self, *args):
                return self.bound(*args)
        class _Handle:
            def __init__(self, obj):
                self.obj = obj
            def __getattr__(self, name):
                return _Method(getattr(self.obj, name))
        class _ActorClass:
            def __init__(self, cls):
                self.cls = cls
            def options(self, **_):
                return self
            def remote(self, *args):
                return _Handle(self.cls(*args))
        ray.remote = _ActorClass
        ray.get = lambda refs: refs
        sys.modules["ray"] = ray
        from raylane.router import Router
        results = [{"rows": [1, 2], "tree": [7, 8]}]
        Router(sys.argv[1].lower(), replicas=1).serve_disagg_decode(results)
        """,
        ("TREE", "OFF"),
    ),
    "connector_entry": (
        """
        import sys
        from lane_connector.drafts import DraftMethod
        from lane_connector.worker import DisaggregationMode, Worker
        worker = Worker(DraftMethod[sys.argv[1]], DisaggregationMode.DECODE)
        worker.serve({"tokens": [1, 2], "hidden": [0.5]})
        """,
        ("CHAIN",),
    ),
    "runner_connector": (
        """
        import sys
        from tandem_runner.guessing import Guess
        from tandem_runner.runner import StepRunner
        StepRunner(Guess[sys.argv[1]]).step({"r1": {"tokens": [1, 2], "guess": [7, 8]}})
        """,
        ("TREE", "CHAIN", "OFF"),
    ),
    "element_flow": (
        """
        import sys
        from pack_engine.drafting import Speculator
        from pack_engine.scheduler import DecodeScheduler
        handoffs = [{"draft": [4, 5]}, {"draft": [6]}]
        DecodeScheduler(Speculator[sys.argv[1]]).event_loop_disagg_decode(handoffs)
        """,
        ("TREE", "CHAIN"),
    ),
    "executor_step": (
        """
        import asyncio, sys
        from offload_engine.drafting import Drafter
        from offload_engine.server import DecodeServer
        server = DecodeServer(Drafter[sys.argv[1]])
        asyncio.run(server.event_loop_disagg_decode([{"draft": [3, 4]}]))
        """,
        ("TREE", "CHAIN"),
    ),
    "flag_composite": (
        """
        import sys
        from wire_engine.worker import DecodeWorker
        DecodeWorker(sys.argv[1]).event_loop_disagg_decode([{"kv_bytes": 40}])
        """,
        ("SHM", "IB", "SOCKET"),
    ),
    "named_step": (
        """
        import sys
        from loop_engine.drafting import Drafting
        from loop_engine.engine import Engine, Request
        engine = Engine(Drafting[sys.argv[1]])
        engine.waiting.append(Request({"draft": [1, 2]}))
        engine.serve(1)
        """,
        ("TREE", "CHAIN", "OFF"),
    ),
    "forwarded_options": (
        """
        import sys
        from option_engine.methods import Lookahead
        from option_engine.worker import DecodeWorker
        DecodeWorker(Lookahead[sys.argv[1]]).event_loop_disagg_decode([{"window": [3, 4]}])
        """,
        ("JACOBI", "BLOCK", "NONE"),
    ),
    "remote_constructor": (
        """
        import sys
        from cross_engine.engine import DecodeEngine
        from cross_engine.spec import SpecKind
        DecodeEngine(SpecKind[sys.argv[1]]).event_loop_disagg_decode([{"drafts": [3, 4]}])
        """,
        ("TREE", "CHAIN", "OFF"),
    ),
    "handed_arguments": (
        """
        import asyncio, sys
        from relay_pool.guessing import GuessMode
        from relay_pool.server import DecodeServer
        server = DecodeServer(GuessMode[sys.argv[1]])
        asyncio.run(server.event_loop_disagg_decode([{"guess": [3, 4]}]))
        """,
        ("TREE", "CHAIN"),
    ),
    "held_callable": (
        """
        import sys
        from bound_engine.server import DecodeServer
        from bound_engine.speculation import Speculator
        DecodeServer(Speculator[sys.argv[1]]).event_loop_disagg_decode([{"proposal": [3, 4]}])
        """,
        ("TREE", "CHAIN"),
    ),
    "imported_helper": (
        """
        import sys
        from relay_desk.server import DecodeServer
        DecodeServer(sys.argv[1].lower()).event_loop_disagg_decode([{"proposal": [3, 4]}])
        """,
        ("TREE", "CHAIN"),
    ),
    "passed_variant": (
        """
        import sys
        from page_relay.receiver import DecodeReceiver
        from page_relay.settings import LinkSettings
        receiver = DecodeReceiver(LinkSettings(transport=sys.argv[1]))
        receiver.event_loop_disagg_decode([(1, {"pages": ["3", "4"]})])
        """,
        ("rdma", "tcp"),
    ),
    "named_dispatch": (
        """
        import sys
        from fmt_engine.formats import WireFormat
        from fmt_engine.worker import DecodeWorker
        DecodeWorker(WireFormat[sys.argv[1]]).run_disagg_decode([{"offsets": [1, 2, 3]}])
        """,
        ("PACKED", "PAGED"),
    ),
    "bound_table": (
        """
        import sys
        from tier_cache.connector import DecodeSideLoader
        from tier_cache.tiers import Tier
        DecodeSideLoader(Tier[sys.argv[1]]).event_loop_disagg_decode([("k", 3)])
        """,
        ("HOST", "NVME", "PEER"),
    ),
    "name_prefix": (
        """
        import sys
        from head_engine.heads import HeadKind
        from head_engine.runner import DecodeRunner
        DecodeRunner(HeadKind[sys.argv[1]]).event_loop_disagg_decode([{"logits": [1, 5]}])
        """,
        ("MTP_SHARED", "MTP_SEPARATE", "NONE"),
    ),
    "dict_request": (
        """
        import sys
        from dict_serve.engine import DecodeEngine
        from dict_serve.speculation import Proposer
        record = {"rid": 1, "hidden_tokens": [1, 2], "prompt": [3, 4, 5]}
        DecodeEngine(Proposer[sys.argv[1]]).event_loop_disagg_decode([record])
        """,
        ("EAGLE", "NGRAM"),
    ),
    "held_component": (
        """
        import sys
        from desk_engine.drafting import DraftMethod
        from desk_engine.scheduler import DecodeScheduler
        scheduler = DecodeScheduler(DraftMethod[sys.argv[1]], 2)
        scheduler.event_loop_disagg_decode([{"draft": [3, 4]}])
        """,
        ("TREE", "CHAIN"),
    ),
    "mapped_steps": (
        """
        import sys
        from sweep_engine.server import DecodeServer
        from sweep_engine.speculation import Speculator
        DecodeServer(Speculator[sys.argv[1]]).event_loop_disagg_decode([{"proposal": [3, 4]}])
        """,
        ("TREE", "CHAIN"),
    ),
    "override_hook": (
        """
        import sys
        from hook_engine.engine import DecodeEngine
        from hook_engine.heads import SpecMethod
        handoff = {"tokens": [5], "head_logits": [1.0]}
        DecodeEngine(SpecMethod[sys.argv[1]]).event_loop_disagg_decode([handoff])
        """,
        ("MEDUSA", "HYDRA", "NONE"),
    ),
    "positional_idle": (
        # argv[1] is the phase of the step: an idle rank has nothing incoming
        """
        import sys
        from rank_engine.drafting import Drafting
        from rank_engine.rank import DecodeRank
        incoming = [] if sys.argv[1] == "IDLE" else [11]
        DecodeRank(Drafting.CHAIN, incoming).event_loop_disagg_decode(1)
        """,
        ("DECODE",),
    ),
    "warmup_factory": (
        # argv[1] is the phase: an idle rank has nothing transferred
        """
        import sys
        from brook.node import DecodeNode
        inbox = [] if sys.argv[1] == "IDLE" else [{"requests": [{"temperature": 0.5}]}]
        print(DecodeNode(inbox, ranks=2).event_loop_disagg_decode())
        """,
        ("DECODE",),
    ),
    "rebuilt_for_every_batch": (
        # argv[1] is the phase: an idle rank has nothing transferred
        """
        import sys
        from ward_engine.scheduler import DecodeWard
        arrived = [] if sys.argv[1] == "IDLE" else [[{"repetition": 2.0}]]
        DecodeWard(arrived).event_loop_disagg_decode(1)
        """,
        ("DECODE",),
    ),
    "running_list": (
        """
        import sys
        from queue_engine.drafting import Drafter
        from queue_engine.scheduler import DecodeScheduler
        DecodeScheduler(Drafter[sys.argv[1]]).event_loop_disagg_decode([{"draft": [4]}])
        """,
        ("TREE",),
    ),
    "handler_table": (
        """
        import sys
        from table_engine.kinds import Kind
        from table_engine.stepper import DecodeStepper
        DecodeStepper(Kind[sys.argv[1]]).event_loop_disagg_decode([{"draft": [1, 2, 3]}])
        """,
        ("TREE",),
    ),
    "property_state": (
        """
        import sys
        from prop_engine.drafting import Drafter
        from prop_engine.loop import DecodeLoop
        DecodeLoop(Drafter[sys.argv[1]]).event_loop_disagg_decode([{"draft": [8]}])
        """,
        ("TREE",),
    ),
    "namespace_relay": (
        """
        import sys
        from orbit.decode.worker import DecodeWorker
        from orbit.spec.drafting import Proposer
        DecodeWorker(Proposer[sys.argv[1]]).event_loop_disagg_decode([{"draft": [3]}])
        """,
        ("TREE", "OFF"),
    ),
    "replace_relay": (
        """
        import sys
        from frozen_engine.drafting import Drafter
        from frozen_engine.engine import DecodeEngine
        DecodeEngine(Drafter[sys.argv[1]]).event_loop_disagg_decode([{"draft": [2]}])
        """,
        ("TREE",),
    ),
    "sibling_mixin": (
        """
        import sys
        from mix_engine.drafting import Algo
        from mix_engine.loop import DecodeLoop
        DecodeLoop(Algo[sys.argv[1]]).event_loop_disagg_decode([{"draft": [6, 7]}])
        """,
        ("TREE",),
    ),
    "registry_local": (
        """
        import sys
        from reg_engine.drafting import Kind
        from reg_engine.loop import event_loop_disagg_decode
        event_loop_disagg_decode(Kind[sys.argv[1]], [{"draft": [3, 4]}])
        """,
        ("TREE", "CHAIN"),
    ),
    "predicate_function": (
        """
        import sys
        from fn_engine.config import Algo, SpecConfig
        from fn_engine.loop import event_loop_disagg_decode
        event_loop_disagg_decode(SpecConfig(Algo[sys.argv[1]]), [{"draft": [9]}])
        """,
        ("TREE", "CHAIN"),
    ),
    "inline_literal": (
        """
        import sys
        from lit_engine.config import DraftConfig
        from lit_engine.runner import DecodeRunner
        DecodeRunner(DraftConfig(sys.argv[1])).event_loop_disagg_decode([{"draft": [1, 2]}])
        """,
        ("tree", "chain"),
    ),
    "conditional_choice": (
        """
        import sys
        from cond_engine.drafting import Kind
        from cond_engine.worker import DecodeWorker
        DecodeWorker(Kind[sys.argv[1]]).event_loop_disagg_decode([{"draft": [1, 2]}])
        """,
        ("TREE",),
    ),
    "lambda_table": (
        """
        import sys
        from lam_engine.modes import Mode
        from lam_engine.stepper import DecodeStepper
        DecodeStepper(Mode[sys.argv[1]]).event_loop_disagg_decode([{"draft": [1, 2]}])
        """,
        ("TREE",),
    ),
    "lazy_variant": (
        # argv[1] is the member's value, the server argument the property converts
        """
        import sys
        from lazy_engine.scheduler import DecodeScheduler, ServerArgs
        DecodeScheduler(ServerArgs(sys.argv[1].lower())).event_loop_disagg_decode([{"draft": [5]}])
        """,
        ("TREE", "OFF"),
    ),
    "class_table": (
        """
        import sys
        from tab_engine.drafting import Kind
        from tab_engine.worker import DecodeWorker
        DecodeWorker(Kind[sys.argv[1]]).event_loop_disagg_decode([{"draft": [1, 2]}])
        """,
        ("TREE", "OFF"),
    ),
    "decorated_registry": (
        """
        import sys
        from plug_engine.spec import Method
        from plug_engine.worker import DecodeWorker
        DecodeWorker(Method[sys.argv[1]], 2).event_loop_disagg_decode([{"draft": [1, 2, 3]}])
        """,
        ("TREE", "OFF"),
    ),
    "spot_partial": (
        """
        import sys
        from spot_engine.scheduler import DecodeScheduler
        from spot_engine.speculation import Speculation
        scheduler = DecodeScheduler(Speculation[sys.argv[1]], 2)
        scheduler.event_loop_disagg_decode([{"proposal": [5, 6, 7]}])
        """,
        ("TREE", "CHAIN"),
    ),
    "injected_component": (
        """
        import sys
        from inj_engine.drafts import DraftMode
        from inj_engine.server import serve
        serve(DraftMode[sys.argv[1]].value, [{"draft": [4, 5, 6]}])
        """,
        ("EAGLE", "MEDUSA"),
    ),
    "closure_step": (
        """
        import sys
        from pick_engine.scheduler import DecodeScheduler
        from pick_engine.state import Lookahead
        scheduler = DecodeScheduler(Lookahead[sys.argv[1]], 2)
        scheduler.event_loop_disagg_decode([{"draft": [4, 5, 6]}])
        """,
        ("DEEP", "SHALLOW"),
    ),
    "walrus_scope": (
        """
        import sys
        from scope_engine.drafting import Kind
        from scope_engine.loop import event_loop_disagg_decode
        event_loop_disagg_decode(Kind[sys.argv[1]], [{"draft": [4]}])
        """,
        ("TREE",),
    ),
    "late_raise": (
        """
        import sys
        from loud_engine.drafting import Drafting
        from loud_engine.loop import DecodeWorker
        DecodeWorker(Drafting[sys.argv[1]]).event_loop_disagg_decode([{"draft": [1, 2]}])
        """,
        ("TREE", "CHAIN", "OFF"),
    ),
    "fallback_payload": (
        """
        import sys
        from stash_engine.drafting import Drafting
        from stash_engine.loop import DecodeWorker
        handoff = {"draft": [1], "last": [5, 6]}
        DecodeWorker(Drafting[sys.argv[1]]).event_loop_disagg_decode([handoff])
        """,
        ("TREE", "CHAIN", "OFF"),
    ),
    "typed_builder": (
        """
        import sys
        from tally_engine.executor import DecodeExecutor
        from tally_engine.modes import Drafting
        DecodeExecutor(Drafting[sys.argv[1]]).event_loop_disagg_decode([{"page": 3}])
        """,
        ("CHAIN", "TREE", "OFF"),
    ),
    "protocol_family": (
        """
        import sys
        from lattice_engine.decode import DecodeScheduler
        from lattice_engine.states import Method
        handoff = {"rid": "r1", "tokens": [1, 2, 3], "heads": [4]}
        DecodeScheduler(Method[sys.argv[1]]).event_loop_disagg_decode([handoff])
        """,
        ("NGRAM", "MEDUSA", "OFF"),
    ),
    "config_table": (
        """
        import sys
        from sprig_engine.config import DraftConfig
        from sprig_engine.runner import DecodeRunner
        runner = DecodeRunner(DraftConfig(sys.argv[1], role="decode"))
        runner.event_loop_disagg_decode([{"rid": "r1", "tokens": [3, 4], "draft": [5]}])
        """,
        ("lookup", "tree"),
    ),
    "generation_role": (
        """
        import sys
        from gen_engine.args import DraftConfig, EngineArgs, ServerRole
        from gen_engine.executor import GenerationExecutor
        from gen_engine.modes import DraftMode
        args = EngineArgs(ServerRole.GENERATION, DraftConfig(DraftMode[sys.argv[1]]))
        arrival = {"rid": "r1", "rows": [1, 2], "logits": [0.5]}
        GenerationExecutor(args).executor_loop_disagg_generation([arrival])
        """,
        ("TREE", "HEADS", "OFF"),
    ),
    "drafter_none": (
        """
        import sys
        from knot_engine.executor import Executor
        Executor(sys.argv[1]).executor_loop_disagg_decode([{"rid": "r1", "last": 5, "draft": [1]}])
        """,
        ("CHAIN", "POOL", "OFF"),
    ),
    "worker_table": (
        """
        import sys
        from loom_engine.scheduler import DecodeScheduler
        DecodeScheduler({"algo": sys.argv[1]}).event_loop_disagg_decode(
            [{"tokens": [1, 2], "rows": [3]}]
        )
        """,
        ("TREE", "FLAT", "NONE"),
    ),
    "handler_callbacks": (
        """
        import sys
        from reed_engine.config import ReceiverConfig
        from reed_engine.disagg_decode import DecodeReceiver
        receiver = DecodeReceiver(ReceiverConfig(sys.argv[1]))
        receiver.on_transfer_start({"key": 1, "port": 2, "chunks": 1})
        receiver.on_chunk(0)
        assert receiver.ready()
        """,
        ("ib", "tcp"),
    ),
    "local_alias": (
        """
        import sys
        from tally_engine.runner import Runner
        Runner(sys.argv[1].lower()).run_disagg_decode([{"rid": "r1", "last": 3, "rows": [1]}])
        """,
        ("WINDOW", "PLAIN"),
    ),
    "keyed_relay": (
        """
        import sys
        from sluice_engine.decode import Receiver
        from sluice_engine.guess import Guess
        Receiver(Guess[sys.argv[1]]).serve_disagg_decode([[{"last": 3}, {"last": 5}]])
        """,
        ("OFF", "TREE", "CHAIN", "LOOKUP"),
    ),
    "closure_worker": (
        """
        import sys
        from hatch_engine.handler import Server
        from hatch_engine.worker import Worker
        Server(Worker(sys.argv[1].lower())).serve([1, 2], {"hidden": [7]})
        """,
        ("FULL", "NONE"),
    ),
    "subclass_registry": (
        """
        import sys
        from reel_engine.decode import DecodeLoop
        from reel_engine.lanes import Lane
        DecodeLoop(Lane[sys.argv[1]]).loop_disagg_decode([{"tokens": [1, 2], "depth": 2}])
        """,
        ("OFF", "TREE", "CHAIN"),
    ),
    "returned_carrier": (
        """
        import sys
        from quay_engine.spec import Spec
        from quay_engine.worker import DecodeWorker
        handoff = {"rid": "r1", "tokens": [1, 2], "heads": [5], "hydra": [6]}
        DecodeWorker(Spec[sys.argv[1]]).step([handoff])
        """,
        ("NONE", "MEDUSA", "HYDRA"),
    ),
    "carried_field": (
        """
        import sys
        from note_engine.handover import Handover
        from note_engine.modes import Lookahead
        Handover(Lookahead[sys.argv[1]]).serve_disagg_decode([{"ids": [1, 2], "first": 3}])
        """,
        ("OFF", "NGRAM", "BEAM"),
    ),
    "placeholder_subclass": (
        """
        import sys
        from grid_engine.loop import DecodeLoop
        from grid_engine.strategy import Strategy
        DecodeLoop(Strategy[sys.argv[1]]).loop_disagg_decode([[1, 2]])
        """,
        ("LINEAR", "GRID", "OFF"),
    ),
    "worker_side_connector": (
        """
        import sys
        from pull_connector.backends import Backend
        from pull_connector.worker import BlockPuller, RequestMeta
        BlockPuller(Backend[sys.argv[1]]).start_load_kv([RequestMeta([1, 2])])
        """,
        ("HOST", "REMOTE"),
    ),
    "fallback_payload_fixed": (
        """
        import sys
        from filled_engine.drafting import Drafting
        from filled_engine.loop import DecodeWorker
        handoff = {"draft": [1], "last": [5, 6]}
        DecodeWorker(Drafting[sys.argv[1]]).event_loop_disagg_decode([handoff])
        """,
        ("TREE", "CHAIN", "BEAM", "OFF"),
    ),
    "literal_drafters": (
        """
        import sys
        from drafter_connector.config import SpeculativeConfig
        from drafter_connector.kv_transfer.connector import DecodeSideConnector
        from drafter_connector.spec_decode.metadata import Request
        connector = DecodeSideConnector(SpeculativeConfig(sys.argv[1]))
        params = {"token_ids": [1, 2], "hidden": [0.5]}
        connector._pending["r"] = (Request("r", [1, 2, 3]), params)
        connector.start_load_kv({})
        """,
        ("eagle", "eagle3", "medusa", "mtp"),
    ),
    "state_subclass": (
        """
        import sys
        from bough.engine import DecodeEngine
        from bough.proposals import Proposal
        DecodeEngine(Proposal[sys.argv[1]]).serve_disagg_decode([{"tokens": [1, 2, 3]}])
        """,
        ("TREE", "GREEDY"),
    ),
    "copied_kind": (
        """
        import sys
        from ferry.config import EngineConfig, GuessConfig
        from ferry.worker import DecodeWorker
        handoff = {"rid": "r1", "tokens": [1, 2], "guess": [7, 8]}
        DecodeWorker(EngineConfig(GuessConfig(sys.argv[1]))).event_loop_disagg_decode([handoff])
        """,
        ("lookup", "tree", "tree_wide"),
    ),
    "sibling_method": (
        """
        import sys
        from stowage.layouts import Layout
        from stowage.receiver import Arrival, DecodeReceiver
        DecodeReceiver().run_disagg_decode([Arrival("r1", Layout[sys.argv[1]], b"abcd")])
        """,
        ("DENSE", "PAGED"),
    ),
    "state_subclass_fixed": (
        """
        import sys
        from grove.engine import DecodeEngine
        from grove.proposals import Proposal
        DecodeEngine(Proposal[sys.argv[1]]).serve_disagg_decode([{"tokens": [1, 2, 3]}])
        """,
        ("TREE", "PREFIX_TREE", "PAGED_TREE", "LAYERED_TREE", "GREEDY"),
    ),
    "strategy_table": (
        # argv[1] is the algorithm; a second run of each makes an idle batch (no
        # requests), which the idle strategy's placeholder serves
        """
        import sys
        from strategy_engine.modes import SpecAlgo
        from strategy_engine.scheduler import Scheduler
        Scheduler(SpecAlgo[sys.argv[1]]).event_loop_disagg_decode([([], [])])
        Scheduler(SpecAlgo[sys.argv[1]]).event_loop_disagg_decode([(["r"], [0.5])])
        """,
        ("NONE", "EAGLE"),
    ),
    "handler_local": (
        """
        import sys
        from handoff_handler.handler import RequestHandler
        from handoff_handler.modes import DisaggregationMode, DraftAlgo
        request = {"id": "r", "prefill_result": {"hidden": [1.0]}}
        RequestHandler(DisaggregationMode.DECODE, DraftAlgo[sys.argv[1]]).generate(request)
        """,
        ("NONE", "EAGLE", "MTP"),
    ),
    "template_workers": (
        """
        import sys
        from tmpl_engine.algorithm import SpeculativeAlgorithm
        from tmpl_engine.scheduler import DecodeScheduler
        handoff = {"hidden": [0.5], "positions": [1, 2]}
        scheduler = DecodeScheduler(SpeculativeAlgorithm[sys.argv[1]])
        scheduler.event_loop_disagg_decode([([1, 2, 3], handoff)])
        """,
        ("EAGLE", "MTP"),
    ),
    "statement_pairs": (
        """
        import sys
        from pairdec.config import DraftConfig
        from pairdec.runner import DecodeServer
        DecodeServer(DraftConfig(sys.argv[1])).run_disagg_decode([{"accepted": [4, 5]}])
        """,
        ("tree", "chain"),
    ),
    "crash_then_placeholder": (
        """
        import sys
        from headloop.loop import DecodeLoop
        from headloop.spec import Spec
        DecodeLoop(Spec[sys.argv[1]]).event_loop_disagg_decode([{"logits": [0.5]}])
        """,
        ("HYDRA", "LADDER", "OFF"),
    ),
    "loop_choice": (
        # the overlapped loop, the one the finding's path starts at
        """
        import sys
        from twinloop.config import Method, ServeConfig
        from twinloop.worker import serve
        serve(ServeConfig(Method[sys.argv[1]], overlap=True), [{"tokens": [1, 2]}])
        """,
        ("TREE", "OFF"),
    ),
    "generic_pool": (
        """
        import sys
        from pool_engine.scheduler import Scheduler
        from pool_engine.spec import Method
        scheduler = Scheduler(Method[sys.argv[1]])
        scheduler.transfers.append(("r", 2))
        scheduler.run_disagg_decode_once()
        """,
        ("NONE", "TREE", "CHAIN"),
    ),
    "property_predicate": (
        """
        import asyncio, sys
        from tide_engine.batch import Handoff
        from tide_engine.scheduler import DecodeScheduler
        from tide_engine.spec import SpecAlgo
        async def main():
            scheduler = DecodeScheduler(SpecAlgo[sys.argv[1]])
            await scheduler.inbox.put(Handoff("r1", {"hidden": [0.5]}))
            await scheduler.inbox.put(None)
            await scheduler.disagg_decode_loop()
        asyncio.run(main())
        """,
        ("NONE", "EAGLE", "EAGLE3"),
    ),
    "idle_argument": (
        # argv[1] is the batch's mode: an idle step has no requests (size 0); each
        # tree algorithm runs with both backends
        """
        import sys
        from runner_engine.enums import SpecAlgorithm
        from runner_engine.runner import ModelRunner
        size = 0 if sys.argv[1] == "IDLE" else 2
        for algo in (SpecAlgorithm.EAGLE, SpecAlgorithm.STANDALONE):
            ModelRunner(algo, "triton").event_loop_disagg_decode([size])
            ModelRunner(algo, "flash").event_loop_disagg_decode([size])
        """,
        ("DECODE",),
    ),
    "dummy_factory": (
        # argv[1] is the batch's mode: a dummy batch, or a relayed one per algorithm
        """
        import sys
        from dummy_engine.worker import Worker
        for name in ("off", "eagle", "medusa"):
            if sys.argv[1] == "DUMMY" and name != "off":
                Worker(name).execute_dummy_batch()
            Worker(name).relay_disagg_decode(["r"], [1, 2])
        """,
        ("DECODE",),
    ),
    "hook_list": (
        """
        import sys
        from hooks_engine.algos import DraftAlgo
        from hooks_engine.engine import DecodeEngine
        payload = {"draft_logits": [1.0], "hidden": [0.5]}
        DecodeEngine(DraftAlgo[sys.argv[1]]).disagg_decode_step(["r"], payload)
        """,
        ("NONE", "MEDUSA", "EAGLE"),
    ),
    "inline_builder": (
        """
        import sys
        from beamer.methods import Method
        from beamer.session import DecodeSessions
        DecodeSessions(Method[sys.argv[1]]).drive_disagg_decode([{"beams": [[1, 2], [3]]}])
        """,
        ("BEAM", "TREE", "CHAIN"),
    ),
    "registered_variants": (
        """
        import sys
        from stratreg.strategies import Strategy
        from stratreg.session import DecodeSessions
        DecodeSessions(getattr(Strategy, sys.argv[1])).run_disagg_decode([{"tree": [[1, 2], [3]]}])
        """,
        ("OFF", "TREE", "WIDE_TREE"),
    ),
    "flag_table": (
        """
        import sys
        from headkit.modes import Mode
        from headkit.decoder import Decoder
        Decoder(Mode[sys.argv[1]]).loop_disagg_decode([{"logits": [0.5, 1.5]}])
        """,
        ("GREEDY", "BEAM", "SPEC"),
    ),
    "unwired_builder": (
        """
        import sys
        from wirekit.algos import Drafting
        from wirekit.worker import Worker
        Worker(Drafting[sys.argv[1]]).loop_disagg_decode([{"tokens": [1, 2, 3]}])
        """,
        ("TREE", "OFF"),
    ),
    "unwired_builder_fixed": (
        """
        import sys
        from wiredkit.algos import Drafting
        from wiredkit.worker import Worker
        Worker(Drafting[sys.argv[1]]).loop_disagg_decode([{"tokens": [1, 2, 3]}])
        """,
        ("TREE", "CHAIN", "LOOKUP", "OFF"),
    ),
    "state_alias": (
        """
        import sys
        from planner.plans import Kind
        from planner.worker import Worker
        Worker(Kind[sys.argv[1]]).step_disagg_decode([{"tokens": [1, 2, 3]}])
        """,
        ("BEAM", "SCAN", "REPLAN"),
    ),
    "property_consumer": (
        """
        import sys
        from gauge_engine.engine import DecodeEngine
        from gauge_engine.modes import DraftMode
        engine = DecodeEngine(DraftMode[sys.argv[1]])
        print(engine.event_loop_disagg_decode([{"rid": 1, "heads": [5, 6]}]))
        """,
        ("HEADS", "OFF"),
    ),
    "string_factory_builder": (
        """
        import sys
        from sift_engine.worker import DecodeWorker, ServeConfig
        worker = DecodeWorker(ServeConfig(sys.argv[1]))
        print(worker.run_disagg_decode([{"rid": 1, "pairs": [2, 3]}]))
        """,
        ("rerank", "lexical"),
    ),
    "factory_classmethod": (
        """
        import sys
        from tidal.server import TideServer
        server = TideServer({"guess": sys.argv[1].lower()})
        print(server.event_loop_disagg_decode([{"items": [1, 2], "draft": [7]}]))
        """,
        ("TREE", "CHAIN"),
    ),
    "super_fallback": (
        """
        import sys
        from relay_super.methods import GuessMethod
        from relay_super.worker import DecodeWorker
        worker = DecodeWorker(GuessMethod[sys.argv[1]])
        print(worker.event_loop_disagg_decode([{"rid": 1, "tokens": [4, 5, 6]}]))
        """,
        ("TREE", "OFF"),
    ),
    "injected_mode": (
        # the launcher outside the package makes the executor with its mode
        """
        import sys
        from relay_exec.executor import Executor, Request
        from relay_exec.modes import GuessMode
        executor = Executor(GuessMode[sys.argv[1]])
        executor.waiting.append(Request([1, 2, 3], {"hidden": [0.5, 0.25, 0.125]}))
        print(executor._executor_loop())
        """,
        ("TREE", "CHAIN"),
    ),
    "injected_config": (
        # the launcher outside the package makes the configuration and the server
        """
        import sys
        from cfg_engine.config import EngineConfig
        from cfg_engine.server import DecodeServer
        server = DecodeServer(EngineConfig(sys.argv[1].lower(), role="decode"))
        print(server.event_loop_disagg_decode([{"rid": 1, "tokens": [4, 5, 6]}]))
        """,
        ("TREE", "OFF"),
    ),
    "rejected_idle_branch": (
        # an idle batch (no handoff) of the tree method, or a handed-off batch
        """
        import sys
        from veto_engine.args import ServeArgs
        from veto_engine.modes import Speculation
        from veto_engine.worker import DecodeWorker
        algo = Speculation.TREE if sys.argv[1] == "IDLE" else Speculation[sys.argv[1]]
        handoffs = [] if sys.argv[1] == "IDLE" else [{"rid": 1, "tokens": [4, 5]}]
        print(DecodeWorker(ServeArgs(algo, role="decode")).event_loop_disagg_decode(handoffs))
        """,
        ("TREE", "OFF"),
    ),
    "chosen_override": (
        """
        import sys
        from lane_handlers.lanes import Lane
        from lane_handlers.server import DecodeServer
        server = DecodeServer(Lane[sys.argv[1]])
        print(server.event_loop_disagg_decode([{"rid": 1, "beams": [[3, 4], [5]]}]))
        """,
        ("BEAM", "PLAIN"),
    ),
    "override_builder": (
        # the planner picked per kind, made from the configuration string and injected
        """
        import sys
        from pivot_engine.server import start
        payload = {"rid": 1, "heads": [1, 2], "window": [3, 4, 5]}
        print(start({"plan": sys.argv[1].lower()}, [payload]).event_loop_disagg_decode())
        """,
        ("MEDUSA", "LOOKUP"),
    ),
    "split_connector": (
        # one connector class made twice, as vLLM makes its scheduler's and its worker's
        """
        import sys
        from shuttle_kv.connector import ShuttleConnector
        from shuttle_kv.plans import TransferKind
        class Request:
            request_id = "r1"
            prompt = list(range(8))
            kv_params = {"remote": True, "host": "10.0.0.2", "rdma_port": 7, "tcp_port": 8,
                         "path": "/kv/r1"}
        kind = TransferKind[sys.argv[1]]
        scheduler = ShuttleConnector(kind, "scheduler")
        worker = ShuttleConnector(kind, "worker")
        request = Request()
        n, _ = scheduler.get_num_new_matched_tokens(request, 0)
        scheduler.update_state_after_alloc(request, [3, 4], n)
        worker.bind_connector_metadata(scheduler.build_connector_meta(None))
        worker.start_load_kv(None)
        """,
        ("RDMA", "TCP", "FILE"),
    ),
    "keyed_requests": (
        """
        import sys
        from ledger_engine.engine import DecodeEngine
        from ledger_engine.pulls import PullBackend
        engine = DecodeEngine(PullBackend[sys.argv[1]])
        engine.event_loop_disagg_decode({"r1": {"host": "10.0.0.3", "blocks": [5, 6]}})
        """,
        ("MOONLINK", "SOCKET"),
    ),
    "shipped_entries": (
        """
        import sys
        from relay_kv.connector import RelayConnector
        from relay_kv.specs import Link
        class Request:
            request_id = "r7"
            prompt = [1, 2, 3, 4]
            kv_params = {"engine_id": "prefill-0", "blocks": [9, 10]}
        link = Link[sys.argv[1]]
        scheduler = RelayConnector(link, "scheduler")
        worker = RelayConnector(link, "worker")
        request = Request()
        n, _ = scheduler.get_num_new_matched_tokens(request, 0)
        scheduler.update_state_after_alloc(request, [9, 10], n)
        worker.bind_connector_metadata(scheduler.build_connector_meta(None))
        worker.start_load_kv(None)
        """,
        ("UCX", "GLOO", "NVME"),
    ),
}

# fixture -> what its expected findings crash with (one of them, per member), when
# not an attribute of None
FAILURES: dict[str, tuple[str, ...]] = {
    "late_raise": ("RuntimeError: lookahead decoding needs a draft state",),
    "fallback_payload": ("'NoneType' object is not subscriptable",),
    "carried_field": ("'NoneType' object is not subscriptable",),
    "returned_carrier": ("'NoneType' object is not subscriptable",),
    "subclass_registry": ("AssertionError",),
    "typed_builder": ("AssertionError: paged trees need their page table",),
    "placeholder_subclass": ("TypeError: a cached grid needs a cached plan",),
    "state_alias": ("'NoneType' object has no attribute", "AssertionError: an audit needs"),
    "copied_kind": ("'NoneType' object has no attribute", "AssertionError: a tree needs a tree"),
    "sibling_method": (
        "'NoneType' object has no attribute",
        "AttributeError: 'PackedUnpacker' object has no attribute 'split_heads'",
    ),
    "state_subclass": (
        "AttributeError: 'TreeState' object has no attribute 'reuse_prefix'",
        "TypeError: paged tree proposals need a paged tree state",
        "AssertionError",
    ),
}

_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def _run(name: str, member: str, driver: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run a fixture's driver (its crash driver unless given) for the member."""
    folder = fixture(name)
    env = {**os.environ, "PYTHONPATH": str(folder)}
    code = textwrap.dedent(driver or DRIVERS[name][0])
    return subprocess.run(
        [sys.executable, "-c", code, member],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _expected_crashes(name: str) -> dict[str, set[str]]:
    """member -> the ``path:line`` of its expected PDL101, PDL102, PDL104, PDL105 findings."""
    out: dict[str, set[str]] = {}
    for line in (fixture(name) / "expected.txt").read_text().splitlines():
        if line.startswith(("PDL101 ", "PDL102 ", "PDL104 ", "PDL105 ")):
            _, where, members = line.split()
            for member in members.split(","):
                out.setdefault(member, set()).add(where)
    return out


CASES = [(name, member) for name in sorted(DRIVERS) for member in sorted(_expected_crashes(name))]


@pytest.mark.parametrize(("name", "member"), CASES)
def test_member_crashes_on_the_reported_line(name: str, member: str) -> None:
    done = _run(name, member)
    assert done.returncode != 0, f"{member} ran through: {done.stdout}"
    failures = FAILURES.get(name, ("'NoneType' object has no attribute",))
    assert any(failure in done.stderr for failure in failures), done.stderr
    path, line = _FRAME.findall(done.stderr)[-1]
    where = f"{os.path.relpath(path, fixture(name))}:{line}"
    assert where in _expected_crashes(name)[member], done.stderr


@pytest.mark.parametrize(
    ("name", "member"), [(n, m) for n in sorted(DRIVERS) for m in DRIVERS[n][1]]
)
def test_member_with_state_runs_through(name: str, member: str) -> None:
    done = _run(name, member)
    assert done.returncode == 0, done.stderr


# fixture -> (driver, members a startup validator rejects, members it accepts): the
# silence the fixture expects for the rejected members is right only if they never
# get past startup
VALIDATED: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "inline_builder_fixed": (
        # the relay itself raises for SAMPLE, at handoff
        """
        import sys
        from beamline.methods import Method
        from beamline.session import DecodeSessions
        DecodeSessions(Method[sys.argv[1]]).drive_disagg_decode([{"beams": [[1, 2], [3]]}])
        """,
        ("SAMPLE",),
        ("BEAM", "TREE", "CHAIN"),
    ),
    "constant_validator": (
        """
        import sys
        from gate_engine.config import ServerConfig
        from gate_engine.drafting import Drafter
        ServerConfig(Drafter[sys.argv[1]], role="decode")
        """,
        ("LOOKUP",),
        ("TREE", "CHAIN", "OFF"),
    ),
    "rejected_idle_branch": (
        """
        import sys
        from veto_engine.args import ServeArgs
        from veto_engine.modes import Speculation
        ServeArgs(Speculation[sys.argv[1]], role="decode").check()
        """,
        ("NGRAM",),
        ("TREE", "OFF"),
    ),
    "config_table": (
        # an unrelated check raises first in the same validator
        """
        import sys
        from sprig_engine.config import DraftConfig
        DraftConfig(sys.argv[1], role="decode")
        """,
        ("chain",),
        ("lookup", "tree", "heads"),
    ),
    "generation_role": (
        """
        import sys
        from gen_engine.args import DraftConfig, EngineArgs, ServerRole
        from gen_engine.modes import DraftMode
        EngineArgs(ServerRole.GENERATION, DraftConfig(DraftMode[sys.argv[1]]))
        """,
        ("NGRAM",),
        ("TREE", "HEADS", "LOOKUP", "OFF"),
    ),
    "late_raise_fixed": (
        """
        import sys
        from checked_engine.config import ServerConfig
        from checked_engine.drafting import Drafting
        ServerConfig(Drafting[sys.argv[1]], role="decode")
        """,
        ("LOOKAHEAD",),
        ("TREE", "CHAIN", "OFF"),
    ),
}


@pytest.mark.parametrize(
    ("name", "member", "rejected"),
    [
        (name, member, member in rejected)
        for name, (_, rejected, accepted) in sorted(VALIDATED.items())
        for member in (*rejected, *accepted)
    ],
)
def test_validator_rejects_at_startup(name: str, member: str, rejected: bool) -> None:
    done = _run(name, member, VALIDATED[name][0])
    assert (done.returncode != 0 and "ValueError" in done.stderr) is rejected, done.stderr


def test_every_flow_fixture_has_a_driver() -> None:
    # an idiom fixture's expected gap is a real crash only if a driver runs it
    flow = sorted(p.name for p in (FIXTURES / "flow").iterdir() if (p / "expected.txt").is_file())
    assert flow
    assert [name for name in flow if name not in DRIVERS and name not in VALIDATED] == []
