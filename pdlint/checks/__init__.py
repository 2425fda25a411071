"""The checks: each reads the program model and yields findings with paths.

A check is a :class:`pdlint.checks.base.Check` in the ``check`` module of a family
package under this package, found by walking it (:func:`pdlint.checks.catalogue.checks`);
its rules live in its family's ``catalogue`` module (:data:`pdlint.checks.catalogue.RULES`
gathers them), its analysis in modules it imports when it begins.
The contract (:mod:`pdlint.checks.base`) declares the codes a check reports, the
pack section it reads, what it needs loaded on a lazy model (``Loading``), the
checks whose runs it reads, and how it begins; the engine
(:mod:`pdlint.engine.schedule`) does the rest. A check none of whose codes the
settings select does not run (see :func:`pdlint.engine.schedule.running_checks`).
"""
