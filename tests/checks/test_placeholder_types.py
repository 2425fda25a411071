"""PDL105 through a placeholder: a None test that stores a blank state when the batch
has none runs before the consumer that demands a subclass. A member whose builder made
a state never takes the placeholder, so the placeholder hides nothing for it; a store
that replaces the state for every batch, or a test of the state's class on the way,
does."""

from __future__ import annotations

from pathlib import Path

from pdlint_helpers import json_findings

ENGINE = """\
import enum


class Sketch:
    def __init__(self, n):
        self.n = n

    @staticmethod
    def empty():
        return Sketch(0)


class RingSketch(Sketch):
    pass


class PinnedRingSketch(RingSketch):
    def pinned(self):
        return self.n


class Shape(enum.Enum):
    NONE = 0
    FLAT = 1
    RING = 2
    PINNED_RING = 3

    def sketch_for(self, n):
        if self is Shape.NONE:
            return None
        if self is Shape.FLAT:
            return Sketch(n)
        return RingSketch(n)


def pinned_count(job):
    return job.sketch.pinned()


class Job:
    def __init__(self, shape: Shape, n):
        self.shape = shape
        self.n = n
        self.sketch = None


class Worker:
    def __init__(self, shape: Shape):
        self.shape = shape

    def receive(self, n):
        job = Job(self.shape, n)
        made = self.shape.sketch_for(n)
        if made is not None:
            job.sketch = made
        self.step(job)

    def prime(self, job):
        PRIME
        return job.sketch.n

    def step(self, job):
        self.prime(job)
        if job.shape is Shape.PINNED_RING:
            GUARDED
"""

LINE = ENGINE.splitlines().index("    return job.sketch.pinned()") + 1

# a helper run first makes a blank state for a batch that has none
PLACEHOLDER = """\
if not job.sketch:
            job.sketch = Sketch.empty()"""


def _findings(tmp_path: Path, prime: str, guarded: str = "pinned_count(job)") -> list[tuple]:
    pkg = tmp_path / "ringeng"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    source = ENGINE.replace("PRIME", prime).replace("GUARDED", guarded)
    (pkg / "worker.py").write_text(source)
    entry = "ringeng.worker.Worker.receive"
    found = json_findings("ringeng", "--no-cache", "--entry-point", entry, cwd=tmp_path)
    # PDL001 for NONE, which never reaches the consumer
    return sorted(
        (f["code"], f["location"]["row"], f["member"]) for f in found if f["code"] != "PDL001"
    )


def test_a_placeholder_before_the_consumer_hides_nothing_for_a_built_member(
    tmp_path: Path,
) -> None:
    found = _findings(tmp_path, PLACEHOLDER)
    assert found == [("PDL105", LINE, "PINNED_RING")]


def test_a_store_for_every_batch_is_a_new_state(tmp_path: Path) -> None:
    # the helper replaces the state for every batch: the builder's class is gone
    assert _findings(tmp_path, "job.sketch = PinnedRingSketch(job.n)") == []


def test_a_test_of_the_class_on_the_way_guards_the_consumer(tmp_path: Path) -> None:
    guarded = "if isinstance(job.sketch, PinnedRingSketch):\n                pinned_count(job)"
    assert _findings(tmp_path, PLACEHOLDER, guarded) == []
