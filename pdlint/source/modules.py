"""Module names of files, for ``pdlint check`` and ``pdlint graph`` alike.

A file's package root is the parent of the topmost folder above it that is a
package: one that holds an ``__init__.py``, one the ``namespace-packages`` setting
names (with every folder below it, as ruff reads that setting), or a namespace
package the analysed code imports itself through (``from dynamo.vllm.args import
X`` in a tree where ``dynamo/`` has no ``__init__.py``, see :meth:`ModuleNames.infer`).
Folders between the top and the file without an ``__init__.py`` are namespace
packages too (SGLang's ``sglang/srt``).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

_MAX_DEPTH = 64  # folders looked at above a file for its package root


@functools.lru_cache(maxsize=65536)
def _has_init(directory: str) -> bool:
    return os.path.isfile(os.path.join(directory, "__init__.py"))


@functools.lru_cache(maxsize=4096)
def _children(directory: str) -> frozenset[str]:
    """Names a module in ``directory`` can be imported by: its folders and modules."""
    try:
        entries = os.listdir(directory)
    except OSError:
        return frozenset()
    out = set()
    for name in entries:
        stem = name[:-3] if name.endswith(".py") else name[:-4] if name.endswith(".pyi") else name
        if stem.isidentifier():
            out.add(stem)
    return frozenset(out)


def forget_packages() -> None:
    """Forget which folders hold an ``__init__.py`` (they are remembered within a run)."""
    _has_init.cache_clear()
    _children.cache_clear()


def _evidence_re(name: str) -> re.Pattern[bytes]:
    # ``name.child`` or ``name import child``; what stands before it is checked apart
    # (a literal first: the search runs at the speed of a substring search)
    word = re.escape(name.encode())
    return re.compile(word + rb"(?:\.([A-Za-z_]\w*)|[ \t]+import[ \t(\\]+([A-Za-z_]\w*))")


_IMPORT_LEAD_RE = re.compile(rb"(?:^|[;:])[ \t]*(?:from|import)[ \t]+$")


def imports_through(data: bytes, *, name: str, children: frozenset[str]) -> bool:
    """Whether ``data`` (a module's source) holds an absolute import of a module below
    the package ``name`` whose next part is one of ``children`` (``import name.c``,
    ``from name.c import x``, ``from name import c``)."""
    if name.encode() not in data:
        return False
    for match in _evidence_re(name).finditer(data):
        child = (match.group(1) or match.group(2)).decode()
        if child not in children:
            continue
        start = match.start()
        line_start = data.rfind(b"\n", 0, start) + 1
        lead = data[line_start:start]
        if match.group(2) is not None and not lead.rstrip().endswith(b"from"):
            continue
        if _IMPORT_LEAD_RE.search(lead):
            return True
    return False


@functools.lru_cache(maxsize=256)
def _bare_res(children: frozenset[str]) -> tuple[re.Pattern[bytes], ...]:
    # literals first (``from``, ``import``): the search runs at the speed of a
    # substring search, the names tried only where the keyword is
    names = b"|".join(re.escape(c.encode()) for c in sorted(children, key=len, reverse=True))
    return (
        re.compile(rb"from[ \t]+(?:" + names + rb")(?:[ \t]*\.[ \t]*\w+)*[ \t]+import"),
        re.compile(rb"import[ \t]+(?:" + names + rb")(?!\w)"),
    )


def imports_bare(data: bytes, children: frozenset[str]) -> bool:
    """Whether ``data`` imports one of ``children`` by its bare name (``import x``,
    ``from x import y``, ``from x.sub import y``: absolute, as a module beside the
    importing script is)."""
    if not children:
        return False
    for regex in _bare_res(children):
        for match in regex.finditer(data):
            start = match.start()
            if not data[data.rfind(b"\n", 0, start) + 1 : start].strip():
                return True
    return False


_RELATIVE_RE = re.compile(rb"^[ \t]*from[ \t]+(\.+)", re.MULTILINE)


def relative_level(data: bytes) -> int:
    """The most leading dots of a relative import in ``data`` (``from ..x import y``:
    2), 0 when it has none."""
    if b"from ." not in data and b"from\t." not in data:
        return 0
    return max((len(m.group(1)) for m in _RELATIVE_RE.finditer(data)), default=0)


def _imports_up(data: bytes, *, level: int) -> bool:
    return relative_level(data) >= level


def in_folder(path: str, folder: str | None, directly: bool = False) -> bool:
    """Whether the file ``path`` is under ``folder`` (None: any folder), or in it
    (``directly``)."""
    if folder is None:
        return True
    path = os.path.abspath(path)
    if directly:
        return os.path.dirname(path) == folder.rstrip(os.sep)
    return path.startswith(folder.rstrip(os.sep) + os.sep)


class AnyFile(Protocol):
    def __call__(
        self,
        slot: tuple[str, ...],
        test: Callable[[bytes], bool],
        within: str | None,
        directly: bool = False,
    ) -> bool:
        """Whether an analysed file passes ``test`` (the question ``slot`` names): any
        file, or one under the folder ``within`` (``directly``: in it, not below)."""
        ...


class ModuleNames:
    """Names the files of one run (folders are looked at once per run)."""

    def __init__(self, namespaces: Iterable[str] = ()) -> None:
        """``namespaces``: folders taken as packages with every folder below them
        (the ``namespace-packages`` setting, and those :meth:`infer` finds)."""
        self.namespaces: set[str] = {os.path.normpath(os.path.abspath(n)) for n in namespaces}
        # package folders whose code imports its modules by their bare names, and never
        # through the package's own name: sys.path entries (a script's folder)
        self.roots: set[str] = set()
        self._tops: dict[str, str | None] = {}
        self._packages: dict[str, str | None] = {}  # folder -> the package of its modules

    def is_package(self, directory: str) -> bool:
        """Whether ``directory`` (absolute, normalized) is a package folder."""
        if _has_init(directory):
            return True
        if not self.namespaces:
            return False
        current = directory
        for _ in range(_MAX_DEPTH):
            if current in self.namespaces:
                return True
            parent = os.path.dirname(current)
            if parent == current:
                return False
            current = parent
        return False

    def top(self, directory: str) -> str | None:
        """The topmost package folder at or above ``directory``, below any root
        (None: it is in none)."""
        tops = self._tops
        found = tops.get(directory, "")
        if found != "":
            return found
        # the folders up to one whose top is known (each is looked at once per run)
        chain = []
        current = directory
        above: str | None = None
        for _ in range(_MAX_DEPTH):
            known = tops.get(current, "")
            if known != "":
                above = known
                break
            if current in self.roots:  # nothing at or above a root is a package
                tops[current] = None
                break
            chain.append(current)
            parent = os.path.dirname(current)
            if parent == current:
                break
            current = parent
        for folder in reversed(chain):
            if above is None and self.is_package(folder):
                above = folder
            tops[folder] = above
        return above

    def name(self, path: str) -> str:
        """Dotted module name of the file at ``path`` (absolute, normalized)."""
        directory, filename = os.path.split(path)
        stem = filename.rsplit(".", 1)[0]
        package = self._packages.get(directory, "")
        if package == "":
            top = self.top(directory)
            if top is None:
                package = None
            else:
                rel = os.path.relpath(directory, os.path.dirname(top)).split(os.sep)
                package = ".".join(p for p in rel if p and p != ".")
            self._packages[directory] = package
        if package is None:
            return stem
        if stem in ("__init__", "", "."):
            return package
        return f"{package}.{stem}" if package else stem

    def _above(self, directory: str) -> str | None:
        """The folder a namespace package above ``directory``'s top would be: the
        parent of its top, or the folder itself when it is in no package."""
        top = self.top(directory)
        folder = directory if top is None else os.path.dirname(top)
        if folder in self.roots or folder == os.path.dirname(folder):
            return None
        return folder if os.path.basename(folder).isidentifier() else None

    def infer(self, directories: Sequence[str], any_file: AnyFile) -> bool:
        """Name the files of ``directories`` as the code imports them: a folder the
        code imports modules through (``import dynamo.vllm``, with no ``__init__.py``
        in ``dynamo/``) is a namespace package, level by level; a package whose
        modules import each other by bare name and never through its own name is a
        root, as a script's folder is. True when that changed a name."""
        changed = self._relative_packages(directories, any_file)
        asked: set[str] = set()
        while True:
            found = set()
            for directory in set(directories):
                folder = self._above(directory)
                if folder is None or folder in asked:
                    continue
                asked.add(folder)
                name, children = os.path.basename(folder), _children(folder)
                if any_file(
                    ("through", folder, *sorted(children)),
                    functools.partial(imports_through, name=name, children=children),
                    None,
                ):
                    found.add(folder)
            if not found:
                break
            self.namespaces.update(found)
            self._tops.clear()
            self._packages.clear()
            changed = True
        for top in sorted({t for d in set(directories) if (t := self.top(d)) is not None}):
            if top in self.namespaces or not _has_init(top):
                continue
            name, children = os.path.basename(top), _children(top)
            if any_file(
                ("through", top, *sorted(children)),
                functools.partial(imports_through, name=name, children=children),
                None,
            ):
                continue
            if any_file(
                ("bare", top, *sorted(children)),
                functools.partial(imports_bare, children=children),
                top,
            ):
                self.roots.add(top)
                self._tops.clear()
                self._packages.clear()
                changed = True
        return changed

    def _relative_packages(self, directories: Sequence[str], any_file: AnyFile) -> bool:
        """A module of a folder in no package that imports relatively (``from
        ..spec.proposers import make``, in a tree with no ``__init__.py``) runs as a
        module of packages: its folder and as many above it as the import climbs, less
        one. The topmost of them is a namespace package (with every folder below)."""
        found: set[str] = set()
        for directory in sorted(set(directories)):
            if self.top(directory) is not None:
                continue  # in a package already (a folder between is a namespace one)
            folder, level = None, 1
            current = directory
            while level <= _MAX_DEPTH and os.path.basename(current).isidentifier():
                if not any_file(
                    ("relative", directory, str(level)),
                    functools.partial(_imports_up, level=level),
                    directory,
                    True,
                ):
                    break
                folder, current, level = current, os.path.dirname(current), level + 1
            if folder is not None:
                found.add(folder)
        if not found:
            return False
        self.namespaces.update(found)
        self._tops.clear()
        self._packages.clear()
        return True


def module_name(path: str) -> str:
    """Dotted module name of a file, from the ``__init__.py`` files above it alone."""
    return ModuleNames().name(os.path.normpath(os.path.abspath(path)))
