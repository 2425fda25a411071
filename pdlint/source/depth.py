"""Parsing whose verdict on deep nesting is CPython's, the same in every process.

CPython's limits on nesting count the frames already on the caller's stack
(Python 3.10 and 3.11 count Python frames, later versions the C stack), so a file
nested about 2,990 deep parses in a shallow process and not in a deep one: a worker
process and the main one would disagree, and so would a cached run and a fresh one.
A file the parser refuses for its depth is judged again at the base of a new
thread, where the stack is the same in every process, by ``compile`` as a fresh
interpreter runs it: only a file CPython cannot compile is refused.
"""

from __future__ import annotations

import _thread
import ast
import functools
import sys
import threading
from collections.abc import Callable

# Room the tree's conversion gets when compile accepts the file but the
# conversion alone (which counts one level more) would not: frames, each three
# levels of nesting.
_HEADROOM = 20
_LIMIT = threading.Lock()  # the recursion limit is the process's: one change at a time
if sys.version_info < (3, 12):
    # Python 3.10 and 3.11 count a call of a builtin as a frame, until 3.11
    # specialises the call site (then not): called through a partial it always
    # counts, and the limit gives that frame back. Later versions count the C stack.
    _compile: Callable[..., object] = functools.partial(compile)
    _CALL_FRAME = 1
else:
    _compile = compile
    _CALL_FRAME = 0


def parse_module(text: str, filename: str) -> ast.Module:
    """``ast.parse(text)``; raises what CPython raises for the file, a too-deep
    nesting included (RecursionError or MemoryError) only where CPython's own
    ``compile`` refuses it."""
    try:
        tree = compile(text, filename, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        assert isinstance(tree, ast.Module)
        return tree
    except (RecursionError, MemoryError) as exc:
        # deeper in a stack than at a thread's base: judged there (a parse that
        # succeeds here succeeds there too, with the same tree)
        box: list[tuple[bool, object]] = []
        done = _thread.allocate_lock()
        done.acquire()
        try:
            _thread.start_new_thread(_base, (box, done, text, filename))
        except RuntimeError:  # no thread can start: this stack's verdict stands
            raise exc from None
    done.acquire()
    ok, value = box[0]
    if ok:
        assert isinstance(value, ast.Module)
        return value
    assert isinstance(value, BaseException)
    raise value


def _base(box: list[tuple[bool, object]], done: _thread.LockType, text: str, name: str) -> None:
    """The new thread's first and only frame: ``compile`` is called from here alone,
    as from a fresh interpreter's top level."""
    try:
        with _LIMIT:
            limit = sys.getrecursionlimit()
            sys.setrecursionlimit(limit + _CALL_FRAME)
            try:
                box.append(
                    (True, _compile(text, name, "exec", ast.PyCF_ONLY_AST, dont_inherit=True))
                )
            except (RecursionError, MemoryError):
                try:
                    _compile(text, name, "exec", dont_inherit=True)  # CPython's own verdict
                except SyntaxError:
                    pass  # an error of the compiler's later passes: not nesting
                # CPython compiles it: the tree, with the room its conversion needs
                sys.setrecursionlimit(limit + _HEADROOM)
                box.append(
                    (True, _compile(text, name, "exec", ast.PyCF_ONLY_AST, dont_inherit=True))
                )
            finally:
                sys.setrecursionlimit(limit)
    except BaseException as exc:  # CPython's refusal, handed to the waiting thread
        box.append((False, exc))
    finally:
        done.release()
