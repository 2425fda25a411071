"""A large file parsed a piece of top-level statements at a time.

CPython's syntax tree takes fifty to four hundred times the size of the source (and
a failed parse twice that, for its second pass), so a tree of a whole 50 MB file
does not fit in memory, and one of a 2 MB file of short statements takes 800 MB:
a file over :data:`PIECEWISE_BYTES` or :data:`PIECEWISE_LINES` is cut before lines
that start a statement at column 0, and each piece is parsed and handed on alone
with the count of the lines before it (no source file of the serving engines comes
near either). The indexer adds that count to the lines it reads (renumbering every
node of the tree would cost more than parsing it).

A cut that lands inside a string, a bracket or a continued line leaves a piece
that does not parse (its tokens run into the end); so does one that parts a
decorator from its definition. Such a piece takes in the next ones, twice as
many each time, until it parses. A piece that parses ends where the tokenizer
is at a line's start outside any string and bracket, so the file's tokens are the
pieces' tokens one after the other, and the file's tree their statements in turn
(a clause such as ``else`` or ``except``, which would continue a statement across
the cut, never starts a piece). A piece that fails up to the end of the file
fails as the file does, and is parsed again with its lines in place for the
error's message.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator

PIECEWISE_BYTES = 512_000  # larger files are parsed in pieces
PIECEWISE_LINES = 16_000  # and so are files of more lines (a tree grows with statements)
PIECE_CHARS = 32_000  # about this much text in a piece
# A line that can start a piece: not blank, indented, a comment, a closing
# bracket, a backslash (it joins the next line, whose indentation counts) or a
# clause that continues the statement above.
_CUT = re.compile(r"^(?=[^\s#)\]}\\])(?!(?:else|elif|except|finally)\b)", re.M)


def _line_count(text: str) -> int:
    """Lines as Python numbers them: breaks are ``\\r\\n``, ``\\r`` and ``\\n``."""
    return text.count("\n") + text.count("\r") - text.count("\r\n")


def _cut_after(text: str, at: int) -> int:
    """The first possible cut at or after ``at`` (the text's end if none)."""
    if at >= len(text):
        return len(text)
    found = _CUT.search(text, at)
    return len(text) if found is None else found.start()


def parse_pieces(
    text: str, parse: Callable[[str], ast.Module], piece_chars: int = PIECE_CHARS
) -> Iterator[tuple[int, ast.Module]]:
    """The trees of ``text``'s pieces (about ``piece_chars`` each), in order, each
    with the count of the lines of ``text`` before it (its lines are numbered from 1).

    ``parse`` parses one piece; what it raises for the piece holding the file's
    first error is raised, with that error's lines counted in the whole file.
    A nesting ``parse`` refuses (RecursionError) is raised after every later
    piece has parsed: an error of the parser anywhere comes first, as for the
    whole file.
    """
    start = line = 0
    deferred: RecursionError | None = None
    while start < len(text):
        end = _cut_after(text, start + piece_chars)
        while True:
            try:
                tree = parse(text[start:end])
                break
            except SyntaxError:
                if end < len(text):  # perhaps a cut inside a string: take in more
                    end = _cut_after(text, start + 2 * (end - start))
                    continue
                # the file's own error: parsed again where its lines are
                parse("\n" * line + text[start:])
                raise
            except RecursionError as exc:
                deferred = deferred or exc
                tree = None
                break
        piece = text[start:end]
        if tree is not None and deferred is None:
            yield line, tree
        tree = None
        line += _line_count(piece)
        start = end
    if deferred is not None:
        raise deferred
