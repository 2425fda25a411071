"""PDL104 on relays that hand the rebuilt state on only inside a carrier: no attribute
of the relay ever holds the state, the carrier is a plain class whose ``__init__``
defaults the field to None (or a dataclass), and the fallback carrier may be chosen
into a local in one branch and handed on after the if/else."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pdlint_helpers import fixture, json_findings

ENGINE = """\
from enum import Enum


class Window:
    def __init__(self, n):
        self.weights = [1.0] * n


class Spec(Enum):
    PLAIN = 0
    WIDE = 1
    DEEP = 2

    def weighted(self):
        return self is not Spec.PLAIN

    def rebuild(self, n):
        if self is Spec.WIDE:
            return Window(n)
        return None


CARRIER


class Sink:
    def __init__(self, spec: Spec):
        self.spec = spec

    def take(self, packet):
        if self.spec.weighted():
            return packet.weights[0]
        return packet.head


class Decoder:
    def __init__(self, spec: Spec):
        self.spec = spec
        self.sink = Sink(spec)

    def loop_disagg_decode(self, n):
        window = self.spec.rebuild(n)
RELAY
"""

PLAIN = """\
class Packet:
    def __init__(self, head, *, weights=DEFAULT):
        self.head = head
        self.weights = weights
"""

DATACLASS = """\
import dataclasses


@dataclasses.dataclass
class Packet:
    head: int
    weights: object = DEFAULT
"""

# the fallback's carrier chosen into a local, handed on after the branches
CHOSEN = """\
        fallback = Packet(n)
        if window is not None:
            chosen = Packet(n, weights=window.weights)
        else:
            chosen = fallback
        return self.sink.take(chosen)
"""

# a carrier made and handed on in each branch
IN0 = """\
        if window is None:
            return self.sink.take(Packet(n))
        return self.sink.take(Packet(n, weights=window.weights))
"""


def _findings(tmp_path: Path, carrier: str, relay: str, default: str = "None") -> list[tuple]:
    """(code, line, member) of each finding, the line of ``packet.weights[0]`` as 0."""
    pkg = tmp_path / "sinkeng"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    source = ENGINE.replace("CARRIER", carrier.replace("DEFAULT", default))
    source = source.replace("RELAY", relay.rstrip("\n"))
    (pkg / "core.py").write_text(source)
    line = source.splitlines().index("            return packet.weights[0]") + 1
    found = json_findings("sinkeng", "--no-cache", cwd=tmp_path)
    return sorted((f["code"], f["location"]["row"] - line, f["member"]) for f in found)


@pytest.mark.parametrize("carrier", [PLAIN, DATACLASS], ids=["plain", "dataclass"])
@pytest.mark.parametrize("relay", [CHOSEN, IN0], ids=["chosen", "inline"])
def test_a_carrier_only_relay_leaves_the_field_none_for_the_member(
    tmp_path: Path, carrier: str, relay: str
) -> None:
    # DEEP takes the fallback and reads the weights; PLAIN takes it but never reads them
    found = _findings(tmp_path, carrier, relay)
    assert [f for f in found if f[0] == "PDL104"] == [("PDL104", 0, "DEEP")]
    assert [f[2] for f in found if f[0] == "PDL001"] == ["PLAIN,DEEP"]


def test_a_default_that_is_not_none_is_no_gap(tmp_path: Path) -> None:
    # the field holds a list when the fallback leaves it out: nothing to report
    found = _findings(tmp_path, PLAIN, CHOSEN, default="[0.0]")
    assert [f for f in found if f[0] == "PDL104"] == []


def test_a_default_pdlint_cannot_read_is_unknown(tmp_path: Path) -> None:
    found = _findings(tmp_path, PLAIN, CHOSEN, default="make_default()")
    assert [f for f in found if f[0] == "PDL104"] == []


RETURNED = """\
    def step(self, handoffs: List[dict]) -> List[int]:
        out = []
        for handoff in handoffs:
            packet = self._unpack(handoff)
            out.append(self.verifier.verify(packet))
        return out
"""


@pytest.mark.parametrize(
    "handed",
    [
        "            packet = self._unpack(handoff)\n"
        "            out.append(self.verifier.verify(packet))\n",
        "            out.append(self.verifier.verify(self._unpack(handoff)))\n",
    ],
    ids=["bound", "given-straight"],
)
def test_a_returned_carrier_is_followed_into_its_caller(tmp_path: Path, handed: str) -> None:
    # relay/returned_carrier: the relay returns the packet early when the builder gave
    # nothing; its caller binds it to a local, or hands it straight to the consumer
    root = shutil.copytree(fixture("returned_carrier"), tmp_path / "engine")
    worker = root / "quay_engine" / "worker.py"
    text = worker.read_text()
    assert RETURNED in text
    body = RETURNED.replace(
        "            packet = self._unpack(handoff)\n"
        "            out.append(self.verifier.verify(packet))\n",
        handed,
    )
    worker.write_text(text.replace(RETURNED, body))
    found = json_findings("quay_engine", "--no-cache", "--select", "PDL104", cwd=root)
    assert [(f["filename"], f["location"]["row"], f["member"]) for f in found] == [
        ("quay_engine/verify.py", 15, "LADDER")
    ]
