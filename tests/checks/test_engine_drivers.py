"""The findings the guard and handoff fixtures expect are real: each fixture runs with
CPython (a small driver per fixture, the member or case from argv[1]).

PDL107: the members the guard misses fail on the decode side (more local blocks than
the prefill side sent), the others run through; in the fixed twin every member runs.
PDL108: no member ever runs the body of a reported branch (the lines executed are
traced), and the member it was written for lands elsewhere; in the fixed twin the
branch written for it runs. PDL301: a decode-mode request with no prefill result
runs the prompt locally where the finding is, and fails at once in the fixed twin.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from pdlint_helpers import fixture

# records the lines executed in the fixture's own files, printed as JSON at exit
TRACE = """
import atexit, json, os, sys
_seen = set()
_root = os.getcwd()
def _trace(frame, event, arg):
    path = frame.f_code.co_filename
    if path.startswith(_root):
        if event == "line":
            _seen.add(f"{os.path.relpath(path, _root)}:{frame.f_lineno}")
        return _trace
    return None
sys.settrace(_trace)
atexit.register(lambda: print("TRACE " + json.dumps(sorted(_seen))))
"""


def _run(name: str, driver: str, arg: str) -> subprocess.CompletedProcess[str]:
    folder = fixture(name)
    return subprocess.run(
        [sys.executable, "-c", TRACE + textwrap.dedent(driver), arg],
        cwd=folder,
        env={**os.environ, "PYTHONPATH": str(folder)},
        capture_output=True,
        text=True,
        timeout=60,
    )


def _executed(done: subprocess.CompletedProcess[str]) -> set[str]:
    line = next(x for x in done.stdout.splitlines() if x.startswith("TRACE "))
    return set(json.loads(line[len("TRACE ") :]))


def _expected(name: str, code: str) -> dict[str, set[str]]:
    """``path:line`` -> the members of the fixture's expected findings of ``code``."""
    out: dict[str, set[str]] = {}
    for line in (fixture(name) / "expected.txt").read_text().splitlines():
        if line.startswith(f"{code} "):
            _, where, members = line.split()
            out.setdefault(where, set()).update(members.split(","))
    return out


# ---- PDL107 --------------------------------------------------------------------------

SCHEDULE = """
import sys
from {pkg}.config import DraftConfig, EngineConfig
from {pkg}.scheduler import Request, Scheduler
scheduler = Scheduler(EngineConfig(DraftConfig(sys.argv[1])))
scheduler.schedule(Request(num_tokens=8, remote_blocks=[40, 41]))
print("loaded")
"""
METHODS = ("tree", "chain", "draft_model", "lookup")


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    ("name", "pkg"),
    [
        ("lookahead_guard", "slot_engine"),
        ("lookahead_guard_fixed", "sized_engine"),
        ("inline_limit", "slab_engine"),
    ],
)
def test_missed_members_fail_on_the_decode_side(name: str, pkg: str, method: str) -> None:
    missed = set().union(*_expected(name, "PDL107").values())
    done = _run(name, SCHEDULE.format(pkg=pkg), method)
    if method in missed:
        assert done.returncode != 0
        assert "RuntimeError: 3 local blocks for 2 remote ones" in done.stderr
    else:
        assert done.returncode == 0, done.stderr


# ---- PDL108 --------------------------------------------------------------------------

# fixture -> (driver, the cases it runs, fixed twin: (member, line that must run))
DEAD: dict[str, tuple[str, tuple[str, ...], tuple[str, str] | None]] = {
    "dead_enum_branch": (
        """
        import sys
        from enum_engine.config import Proposer, ServeConfig
        from enum_engine.loop import DecodeLoop
        print(DecodeLoop(ServeConfig(Proposer[sys.argv[1]])).event_loop_disagg_decode())
        """,
        ("NEXT_TOKEN", "TREE", "LOOKUP"),
        None,
    ),
    "converted_mode": (
        """
        import sys
        from shunt_engine.worker import DecodeWorker
        print(DecodeWorker(sys.argv[1].lower()).event_loop_disagg_decode())
        """,
        ("BEAM", "STACK", "FAST"),
        None,
    ),
    "dead_enum_branch_fixed": (
        """
        import sys
        from folded_engine.config import Proposer, ServeConfig
        from folded_engine.loop import DecodeLoop
        print(DecodeLoop(ServeConfig(Proposer[sys.argv[1]])).event_loop_disagg_decode())
        """,
        ("NEXT_TOKEN", "TREE", "LOOKUP"),
        ("NEXT_TOKEN", "folded_engine/loop.py:10"),
    ),
    "folded_handler_mode": (
        """
        import sys
        from fold_handlers.heads import Head
        from fold_handlers.server import DecodeServer
        print(DecodeServer(Head[sys.argv[1]]).event_loop_disagg_decode([1.0, 2.0]))
        """,
        ("PLAIN", "WIDE", "WIDER"),
        None,
    ),
    "dead_literal_branch": (
        """
        import sys
        from method_engine.config import SpecConfig
        from method_engine.connector import HeadConnector
        connector = HeadConnector(SpecConfig(sys.argv[1]))
        connector.register_kv_caches([0, 1])
        print(connector.layers)
        """,
        ("medusa_head", "hydra_head", "head", "draft_model", "lookup"),
        None,
    ),
    "dead_literal_branch_fixed": (
        """
        import sys
        from headed_engine.config import SpecConfig
        from headed_engine.connector import HeadConnector
        connector = HeadConnector(SpecConfig(sys.argv[1]))
        connector.register_kv_caches([0, 1])
        print(connector.layers)
        """,
        ("medusa_head", "hydra_head", "head", "draft_model", "lookup"),
        ("medusa_head", "headed_engine/connector.py:10"),
    ),
    "dead_string_branch": (
        """
        import sys
        from string_engine.args import ServerArgs
        from string_engine.loop import DecodeLoop
        print(DecodeLoop(ServerArgs(sys.argv[1])).event_loop_disagg_decode())
        """,
        ("nextn", "eagle", "ngram"),
        None,
    ),
    "dead_string_branch_fixed": (
        """
        import sys
        from resolved_engine.args import ServerArgs
        from resolved_engine.loop import DecodeLoop
        print(DecodeLoop(ServerArgs(sys.argv[1])).event_loop_disagg_decode())
        """,
        ("nextn", "eagle", "ngram"),
        ("nextn", "resolved_engine/args.py:18"),
    ),
}


@pytest.mark.parametrize("name", sorted(DEAD))
def test_a_reported_branch_never_runs(name: str) -> None:
    driver, cases, needed = DEAD[name]
    executed: set[str] = set()
    for case in cases:
        done = _run(name, driver, case)
        assert done.returncode == 0, done.stderr
        executed |= _executed(done)
        if needed is not None and case == needed[0]:
            assert needed[1] in _executed(done)
    for where in _expected(name, "PDL108"):
        path, line = where.rsplit(":", 1)
        assert f"{path}:{line}" in executed  # the test is evaluated
        assert f"{path}:{int(line) + 1}" not in executed  # its body never runs


# ---- PDL301 --------------------------------------------------------------------------

HANDLE = """
import sys
from {pkg}.engine import DisaggregationMode
from {pkg}.handler import WorkerHandler
request = {{"token_ids": [1, 2, 3]}}
if sys.argv[1] == "handed-off":
    request["prefill_result"] = {{"transfer_params": {{"blocks": [7]}}}}
print(WorkerHandler(DisaggregationMode.DECODE).generate(request))
"""


@pytest.mark.parametrize(
    ("name", "pkg"),
    [
        ("soft_handoff", "relay_worker"),
        ("soft_handoff_logged", "logged_worker"),
        ("soft_handoff_fixed", "strict_worker"),
        ("soft_handoff_raised", "loud_worker"),
        ("soft_handoff_checked", "checked_worker"),
    ],
)
def test_a_decode_request_without_its_prefill_result(name: str, pkg: str) -> None:
    handed = _run(name, HANDLE.format(pkg=pkg), "handed-off")
    assert handed.returncode == 0 and "decoded from blocks [7]" in handed.stdout
    missing = _run(name, HANDLE.format(pkg=pkg), "missing")
    if _expected(name, "PDL301"):
        # the soft read goes on: the decode worker runs the prompt itself
        assert missing.returncode == 0 and "prefilled 3 tokens locally" in missing.stdout
    else:
        assert missing.returncode != 0
        assert "decode worker received a request with no prefill_result" in missing.stderr


KWARGS = """
import sys
from kwarg_worker.engine import DisaggregationMode
from kwarg_worker.handler import BootstrapHandler, WorkerHandler
request = {"token_ids": [1, 2, 3]}
handed = sys.argv[1] == "handed-off"
if handed:
    request["disaggregated_params"] = {"blocks": [7]}
    request["bootstrap_info"] = {"params": {"blocks": [7]}, "room": 1}
print(WorkerHandler(DisaggregationMode.DECODE).generate(request))
print(BootstrapHandler(DisaggregationMode.DECODE).generate(request))
"""


def test_parameters_set_only_when_handed_over() -> None:
    # soft_handoff_kwargs: the walrus-tested read runs the prompt locally without the
    # parameters (PDL301); the bootstrap handler raises instead (clean)
    assert _expected("soft_handoff_kwargs", "PDL301") == {
        "kwarg_worker/handler.py:18": {"disaggregated_params"}
    }
    handed = _run("soft_handoff_kwargs", KWARGS, "handed-off")
    assert handed.returncode == 0, handed.stderr
    assert handed.stdout.split("\n")[:2] == ["decoded from blocks [7]"] * 2
    missing = _run("soft_handoff_kwargs", KWARGS, "missing")
    assert "prefilled 3 tokens locally" in missing.stdout
    assert "no bootstrap_info" in missing.stderr
