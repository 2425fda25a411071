"""What git ignores, for the walk to skip, as ruff's ``respect-gitignore`` does.

Inside a git repository: each folder's ``.gitignore`` (its patterns relative to
that folder), the repository's ``.git/info/exclude`` and the global excludes file
(``core.excludesFile`` in git's configuration, by default
``$XDG_CONFIG_HOME/git/ignore``); in any folder, ``.ignore`` files, as ruff (the
``ignore`` crate) reads them. Patterns are matched with :mod:`pathspec` (git's
wildmatch, negation, folder-only patterns). A deeper file wins over a shallower
one, ``.ignore`` over ``.gitignore``, which wins over ``info/exclude``, which
wins over the global file; within a file, the last matching pattern wins. Git's
own configuration is read here, without running git.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import pathspec

from pdlint.source.globs import posix
from pdlint.source.regular import SETTINGS_LIMIT, read_limited

# Which kind of file a rule comes from, in the order they are consulted.
DOT_IGNORE, GITIGNORE, INFO_EXCLUDE, GLOBAL = 0, 1, 2, 3
# The names in a folder's listing that change the rules below it.
MARKERS = (".git", ".gitignore", ".ignore")


@dataclass(frozen=True)
class Layer:
    """The patterns of one file, relative to ``base`` (an absolute posix folder);
    ``quick`` matches whatever one of them matches (None: not built)."""

    base: str
    spec: pathspec.GitIgnoreSpec
    kind: int
    quick: re.Pattern[str] | None = None


@dataclass(frozen=True)
class Rules:
    """The layers that apply in one folder, in the order they are consulted, and the
    repository the folder is in (None outside one)."""

    layers: tuple[Layer, ...] = ()
    repo: str | None = None

    def ignored(self, path: str, is_dir: bool) -> bool:
        """True if ``path`` (absolute, posix, below the folder) is ignored."""
        for layer in self.layers:
            prefix = layer.base if layer.base.endswith("/") else layer.base + "/"
            if not path.startswith(prefix):
                continue
            relative = path[len(prefix) :] + ("/" if is_dir else "")
            if layer.quick is not None and layer.quick.search(relative) is None:
                continue  # no pattern matches: one regex instead of one per pattern
            include = layer.spec.check_file(relative).include
            if include is not None:
                return include
        return False


class IgnoreFiles:
    """Reads the ignore files of one walk, each once, and the rules of each folder.

    A file that cannot be read is a warning (in :attr:`warnings`) and ignores
    nothing; a line that is not a valid pattern is skipped, as git skips it.
    """

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        self.environ = dict(os.environ if environ is None else environ)
        self.warnings: list[str] = []
        self._specs: dict[str, pathspec.GitIgnoreSpec | None] = {}
        self._user_excludes: str | None | bool = False  # False: not read yet

    def start(self, directory: str) -> Rules:
        """The rules in ``directory`` (real, absolute), with every folder above it.

        A folder named on the command line is walked even when git ignores it (as
        ruff walks it): the rules that ignore it, from above, are then left out.
        """
        real = posix(os.path.realpath(directory))
        chain = [real]
        while True:
            parent = posix(os.path.dirname(chain[-1]))
            if parent == chain[-1]:
                break
            chain.append(parent)
        chain.reverse()
        rules = Rules()
        inside_ignored = False
        for depth, folder in enumerate(chain):
            if depth and rules.ignored(folder, is_dir=True):
                inside_ignored = True
            present = {m for m in MARKERS if os.path.lexists(os.path.join(folder, m))}
            rules = self.enter(rules, folder, present)
        if inside_ignored:
            own = real if real.endswith("/") else real + "/"
            kept = tuple(la for la in rules.layers if (la.base + "/").startswith(own))
            rules = Rules(kept, rules.repo)
        return rules

    def enter(self, rules: Rules, folder: str, names: set[str] | frozenset[str]) -> Rules:
        """The rules in ``folder`` (absolute, posix), below a folder whose are ``rules``;
        ``names``: those of :data:`MARKERS` the folder holds."""
        if not names:
            return rules
        layers = list(rules.layers)
        repo = rules.repo
        if ".git" in names and repo != folder:
            # a repository of its own: its parent's git rules stop at its top
            repo = folder
            layers = [la for la in layers if la.kind == DOT_IGNORE]
            common = _common_dir(os.path.join(folder, ".git"))
            if common is not None:
                self._add(layers, os.path.join(common, "info", "exclude"), folder, INFO_EXCLUDE)
            excludes = self._excludes_file(common, folder)
            if excludes is not None:
                self._add(layers, excludes, folder, GLOBAL)
        if repo is not None and ".gitignore" in names:
            self._add(layers, os.path.join(folder, ".gitignore"), folder, GITIGNORE)
        if ".ignore" in names:
            self._add(layers, os.path.join(folder, ".ignore"), folder, DOT_IGNORE)
        # deeper first within a kind: the bases lie on one line of folders
        layers.sort(key=lambda la: (la.kind, -len(la.base)))
        return Rules(tuple(layers), repo)

    def _add(self, layers: list[Layer], path: str, base: str, kind: int) -> None:
        spec = self._spec(path)
        if spec is not None:
            layers.append(Layer(base, spec, kind, _quick(spec)))

    def _spec(self, path: str) -> pathspec.GitIgnoreSpec | None:
        if path in self._specs:
            return self._specs[path]
        spec = None
        try:
            data = read_limited(path, SETTINGS_LIMIT)
        except FileNotFoundError:
            pass
        except OSError as exc:
            self.warnings.append(f"{path}: cannot read ({exc.strerror or exc}); it ignores nothing")
        else:
            lines = data.decode("utf-8", errors="surrogateescape").splitlines()
            spec = _compile(lines)
        self._specs[path] = spec
        return spec

    def _excludes_file(self, common: str | None, top: str) -> str | None:
        """The global excludes file of the repository at ``top``: ``core.excludesFile``
        of its own configuration, else of the user's, else git's default."""
        if common is not None:
            local = _config_value(os.path.join(common, "config"), "core", "excludesfile")
            if local is not None:
                return _expand(local, top, self.environ)
        if self._user_excludes is False:
            self._user_excludes = self._user_value()
        if isinstance(self._user_excludes, str):
            return _expand(self._user_excludes, top, self.environ)
        return None

    def _user_value(self) -> str | None:
        env = self.environ
        home = env.get("HOME") or os.path.expanduser("~")
        xdg = env.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
        value = None
        # git reads the XDG file, then ~/.gitconfig, the later winning
        for config in (os.path.join(xdg, "git", "config"), os.path.join(home, ".gitconfig")):
            found = _config_value(config, "core", "excludesfile")
            if found is not None:
                value = found
        return value if value is not None else os.path.join(xdg, "git", "ignore")


def _compile(lines: list[str]) -> pathspec.GitIgnoreSpec:
    """The spec of a file's lines; a line git would not take as a pattern is skipped."""
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except ValueError:  # pathspec's pattern errors
        pass
    valid = []
    for line in lines:
        try:
            pathspec.GitIgnoreSpec.from_lines([line])
        except ValueError:  # pathspec's pattern errors
            continue
        valid.append(line)
    return pathspec.GitIgnoreSpec.from_lines(valid)


_GROUP = re.compile(r"\(\?P<\w+>")
_ANY_DEPTH = "(?:.+/)?"


def _quick(spec: pathspec.GitIgnoreSpec) -> re.Pattern[str] | None:
    """A regex that finds a match wherever a pattern of ``spec`` matches (and perhaps
    elsewhere: :meth:`Rules.ignored` then asks the spec), so that a path no pattern
    matches, the common case, costs one search: each pattern's regex is tried at the
    start of every path segment, instead of each regex backtracking over the whole
    path. None if a pattern is not a plain regex."""
    try:
        parts = []
        for pattern in spec.patterns:
            regex = getattr(pattern, "regex", None)
            if pattern.include is None or regex is None:
                continue  # a blank line or a comment
            text = regex.pattern
            if not isinstance(text, str) or regex.flags & ~re.UNICODE:
                return None
            text = _GROUP.sub("(?:", text)
            if not text.startswith("^"):
                parts.append(f".*(?:{text})")  # matches anywhere (``**``): from the start
                continue
            text = text[1:]
            if text.startswith(_ANY_DEPTH):
                text = text[len(_ANY_DEPTH) :]
            parts.append(f"(?:{text})")
        return re.compile(f"(?:^|/)(?:{'|'.join(parts)})" if parts else "(?!)")
    except (re.error, AttributeError, TypeError):
        return None


def _common_dir(dot_git: str) -> str | None:
    """The folder holding ``info/exclude`` and ``config`` for the ``.git`` at ``dot_git``:
    itself, or for a worktree or submodule (a ``.git`` file, ``gitdir: PATH``) the
    common folder its git folder names."""
    if os.path.isdir(dot_git):
        git_dir = dot_git
    else:
        try:
            text = read_limited(dot_git, 1 << 16).decode("utf-8", errors="replace")
        except OSError:
            return None
        if not text.startswith("gitdir:"):
            return None
        target = text[len("gitdir:") :].strip()
        git_dir = os.path.join(os.path.dirname(dot_git), target)
    try:
        common = read_limited(os.path.join(git_dir, "commondir"), 1 << 16).decode(
            "utf-8", errors="replace"
        )
    except OSError:
        return git_dir
    return os.path.normpath(os.path.join(git_dir, common.strip()))


def _expand(value: str, top: str, environ: dict[str, str]) -> str:
    """A path from git's configuration: ``~/`` is the home folder; a relative path is
    taken from the repository's top (where git runs)."""
    if value == "~" or value.startswith("~/"):
        home = environ.get("HOME") or os.path.expanduser("~")
        value = home + value[1:]
    return os.path.join(top, value)


def _config_value(path: str, section: str, key: str) -> str | None:
    """The last value of ``section.key`` in the git configuration file at ``path``
    (names compared case-insensitively; quotes, escapes and comments as git reads
    them); None when the file or the key is absent."""
    try:
        text = read_limited(path, SETTINGS_LIMIT).decode("utf-8", errors="replace")
    except OSError:
        return None
    current = ""
    found = None
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            header = line[1:].split("]", 1)[0].strip()
            # [core], never [core "sub"]: a subsection is another section
            current = header.lower() if '"' not in header else ""
            line = line.split("]", 1)[1].strip() if "]" in line else ""
            if not line:
                continue
        if current != section or "=" not in line:
            continue
        name, value = line.split("=", 1)
        if name.strip().lower() == key:
            found = _config_string(value)
    return found


def _config_string(value: str) -> str:
    """A git configuration value: quotes removed, escapes read, a comment dropped."""
    out: list[str] = []
    quoted = False
    i = 0
    while i < len(value):
        char = value[i]
        if char == "\\" and i + 1 < len(value):
            nxt = value[i + 1]
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(nxt, nxt))
            i += 2
            continue
        if char == '"':
            quoted = not quoted
        elif not quoted and char in "#;":
            break
        else:
            out.append(char)
        i += 1
    return "".join(out).strip()
