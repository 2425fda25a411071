"""An object whose class the variant picks, written as engines write it (blind probe12
p82, p83): the factory wrapped in a test of the variant (``pick(lane) if
lane.uses_drafter() else None``) keeps the class each member gets; an override the
member's object runs is the builder of its state, whose class PDL105 checks; a startup
validator that returns first when its objects are missing (``if transfer is None or
draft is None: return``) still rejects. Each finding is checked with CPython."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pdlint_helpers import package_findings

FILES = {
    "ferry_engine/__init__.py": "",
    "ferry_engine/modes.py": """
        from enum import Enum


        class Lane(Enum):
            WIDE = "wide"
            THIN = "thin"
            SCAN = "scan"
            OFF = "off"

            def uses_drafter(self):
                return self is not Lane.OFF
        """,
    "ferry_engine/drafters.py": """
        from ferry_engine.modes import Lane


        class State:
            def __init__(self, tokens):
                self.tokens = list(tokens)


        class WideState(State):
            pass


        class Drafter:
            def __init__(self, lane):
                self.lane = lane

            def resume(self, req):
                return None


        class TokenDrafter(Drafter):
            def resume(self, req):
                return State(req.tokens)

            def plan(self, reqs):
                for req in reqs:
                    if self.lane is Lane.WIDE:
                        assert isinstance(req.state, WideState)
                    req.out = req.state.tokens[:2]


        class ScanDrafter(Drafter):
            def plan(self, reqs):
                for req in reqs:
                    req.out = req.state.hits


        _BY_LANE = {Lane.WIDE: TokenDrafter, Lane.THIN: TokenDrafter, Lane.SCAN: ScanDrafter}


        def pick_drafter(lane):
            cls = _BY_LANE.get(lane)
            return None if cls is None else cls(lane)
        """,
    "ferry_engine/settings.py": """
        class TransferSettings:
            def __init__(self, role):
                self.role = role


        class DraftSettings:
            def __init__(self, lane):
                self.lane = lane


        class EngineSettings:
            def __init__(self, draft=None, transfer=None):
                self.draft = draft
                self.transfer = transfer
                self.check()

            def check(self):
                transfer, draft = self.transfer, self.draft
                if transfer is None or draft is None:
                    return
                if transfer.role == "decode" and draft.lane == "REJECTED":
                    raise ValueError("this lane is not relayed to a decode server")
        """,
    "ferry_engine/engine.py": """
        from ferry_engine.drafters import pick_drafter
        from ferry_engine.modes import Lane


        class Request:
            def __init__(self, tokens):
                self.tokens = tokens
                self.state = None
                self.out = None


        class Engine:
            def __init__(self, settings):
                self.lane = Lane(settings.draft.lane)
                self.drafter = pick_drafter(self.lane) if self.lane.uses_drafter() else None

            def serve_disagg_decode(self, reqs):
                for req in reqs:
                    if self.drafter is not None:
                        req.state = self.drafter.resume(req)
                if self.drafter is not None:
                    self.drafter.plan(reqs)
                return [req.out for req in reqs]
        """,
}

DRIVER = (
    "import sys\n"
    "from ferry_engine.engine import Engine, Request\n"
    "from ferry_engine.settings import DraftSettings, EngineSettings, TransferSettings\n"
    "settings = EngineSettings(DraftSettings(sys.argv[1]), TransferSettings('decode'))\n"
    "print(Engine(settings).serve_disagg_decode([Request([1, 2, 3])]))\n"
)
DRAFTERS = "ferry_engine/drafters.py"


def _files(rejected: str) -> dict[str, str]:
    name = "ferry_engine/settings.py"
    return {**FILES, name: FILES[name].replace("REJECTED", rejected)}


def _run(root: Path, lane: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", DRIVER, lane], cwd=root, capture_output=True, text=True
    )


def _failure(root: Path, lane: str) -> str:
    """``path:line`` of the lane's failure in the package ("" when it runs through)."""
    done = _run(root, lane)
    if done.returncode == 0:
        return ""
    frame = done.stderr.rsplit('File "', 1)[1]
    path, line = frame.split('", line ')
    return f"{Path(path).relative_to(root)}:{line.split(',')[0]}"


def test_each_lane_gets_its_own_drafter(tmp_path: Path) -> None:
    """THIN and WIDE share the drafter that builds a plain state; WIDE demands its
    subclass (PDL105), SCAN's drafter builds none (PDL001, PDL101); OFF has no
    drafter. No lane is reported at another lane's drafter."""
    found = package_findings(tmp_path, _files("nothing"))
    assert found == [
        f"PDL001 {DRAFTERS}:17 SCAN",
        f"PDL101 {DRAFTERS}:35 SCAN",
        f"PDL105 {DRAFTERS}:28 WIDE",
    ]
    assert _failure(tmp_path, "scan") == f"{DRAFTERS}:35"
    assert "AssertionError" in _run(tmp_path, "wide").stderr
    assert _failure(tmp_path, "wide") == f"{DRAFTERS}:28"
    assert _failure(tmp_path, "thin") == _failure(tmp_path, "off") == ""


@pytest.mark.parametrize(
    ("rejected", "left"),
    [
        ("scan", [f"PDL105 {DRAFTERS}:28 WIDE"]),
        ("wide", [f"PDL001 {DRAFTERS}:17 SCAN", f"PDL101 {DRAFTERS}:35 SCAN"]),
    ],
)
def test_a_validator_returning_first_still_rejects(
    tmp_path: Path, rejected: str, left: list[str]
) -> None:
    found = package_findings(tmp_path, _files(rejected))
    assert found == left
    done = _run(tmp_path, rejected)
    assert done.returncode != 0
    assert "is not relayed to a decode server" in done.stderr


def test_the_state_handed_on_through_a_local(tmp_path: Path) -> None:
    """The engine hands each request's state to its drafter through a local that may
    be None (``meta = None``, then ``meta = req.state``): WIDE's drafter demands the
    subclass of it (PDL105 there), and no lane is reported at another lane's drafter."""
    drafters = (
        FILES["ferry_engine/drafters.py"]
        .replace(
            """                    if self.lane is Lane.WIDE:
                        assert isinstance(req.state, WideState)
""",
            "",
        )
        .replace(
            """        class ScanDrafter(Drafter):""",
            """            def check(self, meta):
                if self.lane is Lane.WIDE:
                    assert isinstance(meta, WideState)


        class ScanDrafter(Drafter):
            def check(self, meta):
                return meta""",
        )
    )
    engine = FILES["ferry_engine/engine.py"].replace(
        """                if self.drafter is not None:
                    self.drafter.plan(reqs)
                return [req.out for req in reqs]""",
        """                self._check_all(reqs)
                if self.drafter is not None:
                    self.drafter.plan(reqs)
                return [req.out for req in reqs]

            def _check_all(self, reqs):
                for req in reqs:
                    meta = None
                    if self.drafter is not None:
                        meta = req.state
                        self.drafter.check(meta)""",
    )
    files = {
        **_files("nothing"),
        "ferry_engine/drafters.py": drafters,
        "ferry_engine/engine.py": engine,
    }
    found = package_findings(tmp_path, files)
    assert found == [
        f"PDL001 {DRAFTERS}:17 SCAN",
        f"PDL101 {DRAFTERS}:40 SCAN",
        f"PDL105 {DRAFTERS}:32 WIDE",
    ]
    assert _failure(tmp_path, "wide") == f"{DRAFTERS}:32"
    assert _failure(tmp_path, "scan") == f"{DRAFTERS}:40"
    assert _failure(tmp_path, "thin") == ""
