"""Decode entry points found with no pack, by name and by interface (issue 33, point 1)."""

from __future__ import annotations

from pathlib import Path

from pdlint_helpers import fixture, run_pdlint

from pdlint.api import FactsMemo
from pdlint.cache.store import FactStore
from pdlint.engine.program import Program
from pdlint.model.entries import heuristic_entries, is_test_code
from pdlint.model.names import Model
from pdlint.source.discover import discover


def _entries(folder: Path) -> list[str]:
    files, _ = discover([str(folder)], ())
    memo: FactsMemo = {}
    program = Program([(f, None) for f in files], FactStore(None), "salt", memo=memo)
    return heuristic_entries(Model(program.load_all()))


def test_connector_methods_and_decode_branch_are_entries() -> None:
    assert _entries(fixture("connector_entry")) == [
        "lane_connector.connector.LaneConnector.get_num_new_matched_tokens",
        "lane_connector.connector.LaneConnector.start_load_kv",
        "lane_connector.worker.Worker.receive",
    ]


def test_waiting_scheduler_and_dummy_runs_are_entries(tmp_path: Path) -> None:
    pkg = tmp_path / "sched_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "scheduler.py").write_text(
        "import enum\n"
        "class Status(enum.Enum):\n"
        "    WAITING = 1\n"
        "    WAITING_FOR_REMOTE_KV = 2\n"
        "class Scheduler:\n"
        "    def schedule(self, req):\n"
        "        if req.status == Status.WAITING_FOR_REMOTE_KV:\n"
        "            req.status = Status.WAITING\n"
        "    def other(self, req):\n"
        "        if req.status == Status.WAITING:\n"
        "            req.status = Status.WAITING_FOR_REMOTE_KV\n"
        "    def execute_dummy_batch(self):\n"
        "        self._dummy_run(1)\n"
        "    def _dummy_run(self, n):\n"
        "        pass\n"
        "    def get_dummy_inputs(self):\n"
        "        pass\n"
    )
    (pkg / "test_scheduler.py").write_text(
        "def test_disagg_decode(req):\n    if req.status == 2:\n        pass\n"
    )
    assert _entries(tmp_path) == [
        "sched_pkg.scheduler.Scheduler._dummy_run",
        "sched_pkg.scheduler.Scheduler.execute_dummy_batch",
        "sched_pkg.scheduler.Scheduler.schedule",
    ]


def test_test_code_is_never_an_entry() -> None:
    assert is_test_code("pkg.tests.test_x", "pkg.tests.test_x.helper")
    assert is_test_code("pkg.worker_test", "pkg.worker_test.run_disagg_decode")
    assert is_test_code("pkg.loop", "pkg.loop.TestLoop.event_loop_disagg_decode")
    assert is_test_code("pkg.loop", "pkg.loop.test_event_loop_disagg_decode")
    assert not is_test_code("pkg.loop", "pkg.loop.Loop.event_loop_disagg_decode")
    assert not is_test_code("pkg.attestation", "pkg.attestation.run")


def test_no_entry_point_is_said_in_the_summary(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text(
        'def check(mode):\n    if mode == "decode":\n        raise ValueError(mode)\n'
    )
    done = run_pdlint("check", ".", "--no-cache", cwd=tmp_path)
    assert done.returncode == 0
    assert "No decode entry point found" in done.stderr
    found = run_pdlint("check", ".", "--no-cache", cwd=fixture("connector_entry"))
    assert "No decode entry point found" not in found.stderr


def test_no_entry_point_parses_nothing_past_discovery(tmp_path: Path) -> None:
    """A lazy run with no entry point loads no file for the rejections under a decode
    test (which it would read for an entry point's findings)."""
    from pdlint.api import analyze
    from pdlint.settings.config import Settings

    (tmp_path / "plain.py").write_text(
        'def check(mode):\n    if mode == "decode":\n        raise ValueError(mode)\n'
    )
    (tmp_path / "loop.py").write_text("def event_loop_disagg_decode():\n    pass\n")
    settings = Settings(root=str(tmp_path), select=("PDL001", "PDL1"))
    result = analyze([str(tmp_path)], settings, lazy=True, cache_dir=str(tmp_path / "c"))
    assert result.stats["entry points"] == 1
    assert result.stats["files parsed"] == 2  # with an entry point: its file and the raise's
    (tmp_path / "loop.py").write_text("def event_loop():\n    pass\n")
    result = analyze([str(tmp_path)], settings, lazy=True, cache_dir=str(tmp_path / "d"))
    assert result.stats["entry points"] == 0
    assert result.stats["files parsed"] == 0


def test_idle_run_discovery_parses_only_files_defining_one(tmp_path: Path) -> None:
    """Finding idle runs with no entry point parses the files that may define an idle
    or dummy run, not every file with a ``dummy`` name (a model's ``get_dummy_text``)."""
    from pdlint.api import analyze
    from pdlint.settings.config import Settings

    (tmp_path / "inputs.py").write_text(
        "class Builder:\n    def get_dummy_text(self):\n        return ''\n"
        "    def idle_time(self):\n        return 0\n"
    )
    (tmp_path / "runner.py").write_text("class Runner:\n    def _dummy_run(self):\n        pass\n")
    settings = Settings(root=str(tmp_path), select=("PDL001", "PDL1"))
    result = analyze([str(tmp_path)], settings, lazy=True, cache_dir=str(tmp_path / "c"))
    assert result.stats["entry points"] == 1
    assert result.loaded_files == [str(tmp_path / "runner.py")]
    (tmp_path / "runner.py").write_text("class Runner:\n    def run(self):\n        pass\n")
    result = analyze([str(tmp_path)], settings, lazy=True, cache_dir=str(tmp_path / "d"))
    assert result.stats["entry points"] == 0
    assert result.loaded_files == []


def test_generation_side_names_are_decode_entries(tmp_path: Path) -> None:
    # the decode role named *generation* (its prefill counterpart *context*): the word
    # ``gen`` or ``generation`` with ``disagg``, never inside another word
    pkg = tmp_path / "gen_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "executor.py").write_text(
        "class Executor:\n"
        "    def _executor_loop_disagg_gen(self):\n"
        "        pass\n"
        "    def _disagg_context_loop(self):\n"
        "        pass\n"
        "    def disagg_agent_setup(self):\n"
        "        pass\n"
        "    def regenerate_disagg_cache(self):\n"
        "        pass\n"
        "class DisaggGenerationWorker:\n"
        "    def step(self):\n"
        "        pass\n"
    )
    assert _entries(tmp_path) == [
        "gen_pkg.executor.DisaggGenerationWorker.step",
        "gen_pkg.executor.Executor._executor_loop_disagg_gen",
    ]


def test_worker_side_connector_methods_make_a_connector(tmp_path: Path) -> None:
    # vLLM v1's worker side: start_load_kv with wait_for_layer_load (or the saving
    # methods) is a connector, itself or through its base; the saving methods are
    # never entries; one receiving method alone is a connector only in a class named so
    pkg = tmp_path / "conn_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "loader.py").write_text(
        "class LayerLoader:\n"
        "    def start_load_kv(self, ctx):\n"
        "        return ctx.blocks\n"
        "    def wait_for_layer_load(self, name):\n"
        "        pass\n"
        "class BlockSink:\n"
        "    def wait_for_save(self):\n"
        "        pass\n"
        "class PagedLoader(BlockSink):\n"
        "    def start_load_kv(self, ctx):\n"
        "        return ctx.blocks\n"
        "class OffloadConnector:\n"
        "    def start_load_kv(self, ctx):\n"
        "        return ctx.blocks\n"
        "class Prefetcher:\n"
        "    def start_load_kv(self, ctx):\n"
        "        return ctx.blocks\n"
        "class Saver:\n"
        "    def save_kv_layer(self, name):\n"
        "        return name.upper()\n"
        "    def wait_for_save(self):\n"
        "        return None\n"
    )
    assert _entries(tmp_path) == [
        "conn_pkg.loader.LayerLoader.start_load_kv",
        "conn_pkg.loader.OffloadConnector.start_load_kv",
        "conn_pkg.loader.PagedLoader.start_load_kv",
    ]


def test_a_connector_ships_its_state_from_an_entry_point(tmp_path: Path) -> None:
    # vLLM v1's scheduler side: build_connector_meta, which ships the per-request state
    # to the worker side, is an entry point of a connector, but no evidence of one
    # (Batcher implements one receiving method alone and is no connector)
    pkg = tmp_path / "ship_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "sched.py").write_text(
        "class SideScheduler:\n"
        "    def get_num_new_matched_tokens(self, request, n):\n"
        "        return len(request.tokens) - n, True\n"
        "    def update_state_after_alloc(self, request, blocks, n):\n"
        "        self.pending[request.rid] = request\n"
        "    def build_connector_meta(self, output):\n"
        "        return list(self.pending.values())\n"
        "class Batcher:\n"
        "    def update_state_after_alloc(self, request, blocks, n):\n"
        "        self.pending[request.rid] = request\n"
        "    def build_connector_meta(self, output):\n"
        "        return list(self.pending.values())\n"
    )
    assert _entries(tmp_path) == [
        "ship_pkg.sched.SideScheduler.build_connector_meta",
        "ship_pkg.sched.SideScheduler.get_num_new_matched_tokens",
        "ship_pkg.sched.SideScheduler.update_state_after_alloc",
    ]


def test_public_methods_of_a_decode_role_class_are_entries(tmp_path: Path) -> None:
    # a class named for the decode role's process (an actor, a pod's server, a worker's
    # handler): its public methods take requests in, whatever they are called
    pkg = tmp_path / "role_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "pods.py").write_text(
        "class PDDecodeServer:\n"
        "    def handle(self, body):\n"
        "        return self._run(body)\n"
        "    def _run(self, body):\n"
        "        return body\n"
        "    @property\n"
        "    def busy(self):\n"
        "        return False\n"
        "class DecodeWorkerHandler:\n"
        "    async def generate(self, request):\n"
        "        yield self.engine.step(request)\n"
        "class DecodeMetadata:\n"  # a decode step's data, no process
        "    def update(self, n):\n"
        "        return n\n"
        "class DecoderLayer:\n"
        "    def forward(self, x):\n"
        "        return x\n"
        "class DecodeServerless:\n"  # ``Server`` inside another word
        "    def serve(self):\n"
        "        return 1\n"
        "class DecodeNode:\n"  # a node's loop, and a step it calls on itself
        "    def run_decode_loop(self):\n"
        "        self.forward(self._adopt())\n"
        "    def forward(self, batch):\n"
        "        return batch.tokens\n"
        "    def _adopt(self):\n"
        "        return 1\n"
        "class TokenDecoder:\n"
        "    def decode(self, ids):\n"
        "        return ids\n"
    )
    assert _entries(tmp_path) == [
        "role_pkg.pods.DecodeNode.forward",
        "role_pkg.pods.DecodeNode.run_decode_loop",
        "role_pkg.pods.DecodeWorkerHandler.generate",
        "role_pkg.pods.PDDecodeServer.handle",
    ]
