"""The ``pdlint`` command line (ruff's verbs, flags and exit codes)."""

from __future__ import annotations

import gc
import os
import signal
import sys
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from pdlint import __version__
from pdlint.api import Result, analyze
from pdlint.cache.store import CacheDirError, cache_location
from pdlint.cache.store import clean as clean_cache
from pdlint.checks.catalogue import RULES, get_rule
from pdlint.engine.run import UNPARSED
from pdlint.model.dropped import DROPPED_CALL
from pdlint.output.progress import TerminalProgress
from pdlint.output.text import concise, full, statistics, statistics_json, summary, to_json
from pdlint.policy.exitcode import any_fails
from pdlint.settings.config import (
    OUTPUT_FORMATS,
    ConfigError,
    Settings,
    check_codes,
    resolve_settings,
)
from pdlint.source.discover import DiscoveryError
from pdlint.source.globs import name_matches

if TYPE_CHECKING:
    from pdlint.model.flowprogram import FlowSource, ModuleReader
    from pdlint.model.names import Model
    from pdlint.settings.packs import Pack

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(v.strip() for item in values for v in item.split(",") if v.strip())


def _cli_packs(items: tuple[str, ...]) -> tuple[str, ...]:
    """``--packs``: a file there is relative to the current directory, as a shell user
    expects (the configuration's ``packs`` are relative to the project root, which
    need not be the current directory)."""
    from pdlint.settings.packs import bundled

    names = bundled()
    return tuple(
        os.path.abspath(p) if p not in names and not os.path.isabs(p) and os.path.isfile(p) else p
        for p in items
    )


def _per_file(values: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    out = []
    for item in values:
        for pair in item.split(";") if ";" in item else [item]:
            if ":" not in pair:
                raise ConfigError(f"--per-file-ignores: expected GLOB:CODES, got '{pair}'")
            glob, codes = pair.rsplit(":", 1)
            out.append((glob.strip(), check_codes(_split((codes,)), "--per-file-ignores")))
    return tuple(out)


def _fail(message: str) -> None:
    click.echo(f"pdlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="pdlint")
def cli() -> None:
    """pdlint: find prefill/decode disaggregation gaps in LLM serving engines."""


@cli.command()
@click.argument("paths", nargs=-1)
@click.option(
    "--output-format",
    type=click.Choice(OUTPUT_FORMATS),
    help="How findings are printed.",
)
@click.option(
    "--select",
    multiple=True,
    help="Rule codes or prefixes to enable (comma-separated).",
)
@click.option("--extend-select", multiple=True, help="Codes to enable on top of --select.")
@click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable.")
@click.option("--per-file-ignores", multiple=True, help="GLOB:CODES[,CODES] pairs.")
@click.option("--exclude", multiple=True, help="Globs to skip (replaces the defaults).")
@click.option("--extend-exclude", multiple=True, help="Globs to skip on top of the defaults.")
@click.option(
    "--respect-gitignore/--no-respect-gitignore",
    default=None,
    help="Skip what git ignores (.gitignore, .git/info/exclude, the global excludes "
    "file) and .ignore files while walking (default: on).",
)
@click.option(
    "--check-syntax",
    is_flag=True,
    default=None,
    help="Parse every file for its syntax errors (PDL900), also those a large tree's "
    "analysis does not need.",
)
@click.option(
    "--exit-zero", is_flag=True, default=None, help="Exit 0 even with findings (notes never fail)."
)
@click.option(
    "--statistics",
    "show_statistics",
    is_flag=True,
    help="Print the count per code instead of the findings (a table, or JSON).",
)
@click.option(
    "--add-noqa",
    is_flag=True,
    help="Add a '# noqa: CODE' comment on each finding's line (needs libcst).",
)
@click.option(
    "--quiet", "-q", is_flag=True, help="Print the findings only: no progress, no summary."
)
@click.option(
    "--config",
    "config_path",
    type=str,
    help="A TOML config file (pyproject.toml or bare).",
)
@click.option("--stdin-filename", type=str, help="Name of the file read from '-'.")
@click.option("--packs", "packs", multiple=True, help="Rule packs (bundled names or TOML paths).")
@click.option("--no-packs", is_flag=True, help="Use no rule pack: the generic engine only.")
@click.option(
    "--entry-point",
    "entry_points",
    multiple=True,
    help="Qualified names or globs of decode entry points.",
)
@click.option("--no-cache", is_flag=True, help="Do not read or write the fact cache.")
@click.option(
    "--cache-dir",
    type=str,
    help="Where the cache lives (default: .pdlint_cache in the project root; "
    "or $PDLINT_CACHE_DIR).",
)
@click.option(
    "--baseline",
    "baseline_path",
    type=str,
    help="Report only findings not in this baseline.",
)
@click.option(
    "--write-baseline",
    "write_baseline_path",
    type=str,
    help="Record the current findings as a baseline.",
)
@click.option(
    "--sarif-category",
    default="",
    help="Code-scanning category for SARIF output (automationDetails.id; default 'pdlint/').",
)
@click.option(
    "--verbose",
    "-v",
    count=True,
    help="After the findings, print the run's counts (-vv: each dropped call, with why).",
)
def check(  # noqa: PLR0913
    paths: tuple[str, ...],
    output_format: str | None,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    per_file_ignores: tuple[str, ...],
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    respect_gitignore: bool | None,
    check_syntax: bool | None,
    exit_zero: bool | None,
    show_statistics: bool,
    add_noqa: bool,
    quiet: bool,
    config_path: str | None,
    stdin_filename: str | None,
    packs: tuple[str, ...],
    no_packs: bool,
    entry_points: tuple[str, ...],
    no_cache: bool,
    cache_dir: str | None,
    baseline_path: str | None,
    write_baseline_path: str | None,
    sarif_category: str,
    verbose: int,
) -> None:
    """Analyse PATHS (default: the current directory; '-' reads stdin)."""
    targets = list(paths) or ["."]
    if write_baseline_path:
        _check_baseline_target(write_baseline_path, baseline_path)
    try:
        # the configuration of the file stdin stands for (ruff finds it so)
        anchors = [stdin_filename if p == "-" and stdin_filename else p for p in targets]
        settings = resolve_settings(anchors, config_path)
        changes: dict[str, Any] = {}
        if select:
            changes["select"] = check_codes(_split(select), "--select")
        if extend_select:
            changes["extend_select"] = settings.extend_select + check_codes(
                _split(extend_select), "--extend-select"
            )
        if ignore:
            changes["ignore"] = settings.ignore + check_codes(_split(ignore), "--ignore")
        if per_file_ignores:
            changes["per_file_ignores"] = settings.per_file_ignores + _per_file(per_file_ignores)
        if exclude:
            changes["exclude"] = _split(exclude)
        if extend_exclude:
            changes["extend_exclude"] = settings.extend_exclude + _split(extend_exclude)
        if respect_gitignore is not None:
            changes["respect_gitignore"] = respect_gitignore
        if check_syntax:
            changes["check_syntax"] = True
        if output_format:
            changes["output_format"] = output_format
        if exit_zero:
            changes["exit_zero"] = True
        if packs:
            changes["packs"] = _cli_packs(_split(packs))
        if entry_points:
            changes["entry_points"] = settings.entry_points + _split(entry_points)
        if no_cache:
            changes["cache"] = False
        if verbose >= 2:
            changes["explain_dropped"] = True
        settings = replace(settings, **changes)
        _check_flags(settings, show_statistics, add_noqa, targets)
        stdin = sys.stdin.buffer.read() if "-" in targets else None
        progress = None
        if settings.output_format in ("concise", "full") and sys.stderr.isatty() and not quiet:
            progress = TerminalProgress(sys.stderr)
        try:
            result = analyze(
                targets,
                settings,
                stdin=stdin,
                stdin_filename=stdin_filename,
                use_packs=not no_packs,
                cache_dir=cache_dir,
                progress=progress,
                keep=_KEPT if _ENDING else None,
            )
            if _ENDING:
                gc.freeze()  # the kept facts: never scanned for cycles again
        finally:
            if progress is not None:
                progress.close()
    except (ConfigError, DiscoveryError) as exc:
        _fail(str(exc))
        return
    if write_baseline_path:
        from pdlint.policy.baseline import BaselineError, write_baseline

        try:
            write_baseline(result.findings, Path(write_baseline_path), settings.root)
        except BaselineError as exc:
            _fail(str(exc))
            return
        n = len(result.findings)
        click.echo(
            f"pdlint: wrote {n} finding{'s' if n != 1 else ''} to {write_baseline_path}",
            err=True,
        )
        sys.exit(EXIT_OK)
    if baseline_path:
        from pdlint.policy.baseline import BaselineError, apply_baseline, load_baseline

        try:
            baseline = load_baseline(Path(baseline_path))
        except BaselineError as exc:
            _fail(str(exc))
            return
        result.findings, matched, stale = apply_baseline(result.findings, baseline, settings.root)
        click.echo(
            f"pdlint: baseline {baseline_path}: {matched} known, {stale} stale, "
            f"{len(result.findings)} new",
            err=True,
        )
    if not result.files:
        result.warnings.append("No Python files found under the given path(s)")
    for warning in result.warnings:
        click.echo(f"pdlint: warning: {warning}", err=True)
    if add_noqa:
        _add_noqa(result, quiet)
        return
    if not show_statistics:
        _emit(result, settings, sarif_category)
    elif settings.output_format == "json":
        click.echo(statistics_json(result.findings), nl=False)
    else:
        click.echo(statistics(result.findings), nl=False)
    if verbose:
        click.echo(f"pdlint: build: {build()}", err=True)
        dropped = []
        for name, count in sorted(result.stats.items()):
            if name.startswith(DROPPED_CALL):
                dropped.append(name if count == 1 else f"{name} ({count} calls)")
            else:
                click.echo(f"pdlint: {name}: {count}", err=True)
        for line in dropped:
            click.echo(f"pdlint: {line}", err=True)
        for note in result.notes:
            click.echo(f"pdlint: note: {note}", err=True)
        for phase, seconds in result.timings.items():
            click.echo(f"pdlint: time, {phase}: {seconds:.2f} s", err=True)
    if not quiet:  # on stderr: never mixed into what a tool reads on stdout
        click.echo(summary(result.findings), err=True)
        if result.files and result.stats.get("entry points", 1) == 0:
            click.echo(
                "No decode entry point found (by name or interface), so nothing was "
                "followed from one: name them with --entry-point or a rule pack.",
                err=True,
            )
        unparsed = result.stats.get(UNPARSED, 0)
        if unparsed:
            click.echo(
                f"{unparsed} of {result.files} files were not parsed (no check needed them), "
                "so their syntax errors are not reported: --check-syntax parses them too.",
                err=True,
            )
    # Notes (the support inventory) are reported but never fail the run.
    if any_fails(result.findings) and not settings.exit_zero:
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_OK)


def _check_baseline_target(target: str, baseline: str | None) -> None:
    """Exit 2 before the analysis if ``--write-baseline`` cannot be honoured."""
    from pdlint.policy.baseline import BaselineError, check_target

    if baseline:
        _fail(
            "--baseline and --write-baseline cannot be used together: --write-baseline "
            "records every current finding, so run it alone to refresh a baseline"
        )
    try:
        check_target(Path(target))
    except BaselineError as exc:
        _fail(str(exc))


def build() -> str:
    """Which of pdlint's modules are compiled (a wheel built with mypyc, see
    hatch_build.py): "pure Python", or "compiled with mypyc:" and their names, read
    from the extension modules installed beside the sources (loaded or not)."""
    from importlib.machinery import EXTENSION_SUFFIXES

    here = Path(__file__).parent
    compiled: list[str] = []
    for path in sorted(here.rglob("*")):
        # the first suffix that fits is the whole one (``.cpython-311-...so`` before ``.so``)
        suffix = next((s for s in EXTENSION_SUFFIXES if path.name.endswith(s)), None)
        stem = path.name[: -len(suffix)] if suffix else ""
        if stem and not stem.endswith("__mypyc"):  # not a module's C code
            compiled.append(".".join(path.relative_to(here).with_name(stem).parts))
    compiled.sort()
    return f"compiled with mypyc: {', '.join(compiled)}" if compiled else "pure Python"


def _emit(result: Result, settings: Settings, sarif_category: str = "") -> None:
    fmt = settings.output_format
    if fmt == "json":
        click.echo(to_json(result.findings), nl=False)
    elif fmt == "full":
        click.echo(full(result.findings, result.sources), nl=False)
    elif fmt == "sarif":
        from pdlint.output.sarif import render as render_sarif

        text = render_sarif(
            result.findings,
            cwd=Path.cwd(),
            version=__version__,
            category=sarif_category,
            project_root=settings.root,
        )
        click.echo(text, nl=False)
    elif fmt == "github":
        from pdlint.output.github import to_github

        click.echo(to_github(result.findings, cwd=Path.cwd()), nl=False)
    else:
        click.echo(concise(result.findings), nl=False)


def _check_flags(
    settings: Settings, show_statistics: bool, add_noqa: bool, targets: list[str]
) -> None:
    """Refuse, before any work, the flags that cannot go together (exit 2)."""
    fmt = settings.output_format
    if show_statistics and fmt not in ("concise", "full", "json"):
        _fail(f"--statistics prints a table or JSON: use it with concise, full or json, not {fmt}")
    if add_noqa and "-" in targets:
        _fail("--add-noqa writes into the files: it cannot take '-' (stdin)")
    if add_noqa:
        try:
            import libcst  # noqa: F401
        except ImportError:
            _fail("--add-noqa needs libcst: pip install libcst")


def _add_noqa(result: Result, quiet: bool) -> None:
    """Write a noqa comment for each finding (ruff's ``--add-noqa``); exit 0."""
    from pdlint.policy.add_noqa import add_noqa

    added, warnings = add_noqa(result.findings)
    for warning in warnings:
        click.echo(f"pdlint: warning: {warning}", err=True)
    if not quiet:
        click.echo(f"Added {added} noqa directive{'s' if added != 1 else ''}.", err=True)
    sys.exit(EXIT_OK)


@cli.command("clean")
@click.option("--cache-dir", type=str, help="The cache to remove (default: the project's).")
@click.option("--config", "config_path", type=str, help="A TOML config file.")
def clean_command(cache_dir: str | None, config_path: str | None) -> None:
    """Remove the cache (.pdlint_cache in the project root, or the configured one)."""
    try:
        settings = resolve_settings(["."], config_path)
    except ConfigError as exc:
        _fail(str(exc))
        return
    try:
        directory = cache_location(settings.root, settings.cache_dir, cache_dir)
        removed = clean_cache(directory, settings.root)
    except CacheDirError as exc:
        _fail(f"{exc}; nothing removed")
        return
    except OSError as exc:
        _fail(f"cannot remove the cache: {exc}")
        return
    click.echo(f"pdlint: {'removed' if removed else 'no cache at'} {directory}", err=True)


@cli.command("rules")
def rules_command() -> None:
    """List every rule: code, name, summary."""
    for rule in RULES.values():
        click.echo(f"{rule.code}  {rule.name:<26} {rule.summary}")


@cli.command("rule")
@click.argument("code")
def rule_command(code: str) -> None:
    """Explain one rule, with an example."""
    rule = get_rule(code)
    if rule is None:
        _fail(f"unknown rule code '{code}' (see 'pdlint rules')")
        return
    click.echo(f"# {rule.name} ({rule.code})\n")
    click.echo(f"Severity: {rule.severity}\n")
    click.echo(f"{rule.summary}.\n")
    click.echo(f"{rule.explanation}\n")
    click.echo("Example:\n")
    for line in rule.example.splitlines():
        click.echo(f"    {line}")


@cli.command("graph")
@click.argument("paths", nargs=-1)
@click.option(
    "--format",
    "graph_format",
    type=click.Choice(("pycg", "json", "dot", "graphml")),
    default="pycg",
    show_default=True,
    help="How the call graph is written (dot and graphml need networkx).",
)
@click.option("--output", "output_path", type=str, help="Write to FILE instead of stdout.")
@click.option(
    "--all", "whole", is_flag=True, help="Roots: every module's top level and every function."
)
@click.option(
    "--entry-point", "entry_points", multiple=True, help="Root functions (name, glob or suffix)."
)
@click.option(
    "--member",
    type=str,
    help="Only the edges this variant member takes (MEMBER, Enum.MEMBER or qualified).",
)
@click.option("--config", "config_path", type=str, help="A TOML config file.")
@click.option("--no-packs", is_flag=True, help="Use no rule pack (entry points as named).")
@click.option("-v", "--verbose", count=True, help="Print calls resolved and dropped on stderr.")
def graph_command(  # noqa: PLR0913
    paths: tuple[str, ...],
    graph_format: str,
    output_path: str | None,
    whole: bool,
    entry_points: tuple[str, ...],
    member: str | None,
    config_path: str | None,
    no_packs: bool,
    verbose: int,
) -> None:
    """Write the resolved call graph (value-flow resolution) of PATHS, found as
    ``check`` finds them, from the decode entry points (as ``check`` finds them, or
    --entry-point), or --all."""
    from pdlint.model.flowprogram import (
        ModuleReader,
        flow_sources,
        load_program,
        load_reachable,
        reachable,
        whole_program,
    )
    from pdlint.output import graphs
    from pdlint.settings.packs import load_packs
    from pdlint.source.modules import forget_packages

    if graph_format in graphs.NEEDS_NETWORKX:
        try:
            import networkx  # noqa: F401
        except ImportError:
            _fail(f"--format {graph_format} needs networkx: pip install networkx")
            return
    targets = list(paths) or ["."]
    forget_packages()
    roots: list[str] = []
    check_model: _CheckModel | None = None
    try:
        settings = resolve_settings(targets, config_path)
        packs = load_packs(settings.packs, settings.root) if not no_packs else []
        if whole:
            program = load_program(targets, settings)
        else:
            sources, found = flow_sources(targets, settings)
            reader = ModuleReader(sources)
            check_model = _CheckModel(sources, settings)
            roots = _graph_roots(reader, packs, settings, list(_split(entry_points)), check_model)
            program = load_reachable(reader, found, roots)
    except (ConfigError, DiscoveryError) as exc:
        _fail(str(exc))
        return
    for warning in program.warnings:
        click.echo(f"pdlint: warning: {warning}", err=True)
    for path, reason in program.errors:
        click.echo(f"pdlint: {path}: skipped ({reason})", err=True)
    flow = program.graph
    if not whole and not roots:
        click.echo(
            "pdlint: no entry point found (name one with --entry-point, or use --all)",
            err=True,
        )
    edges = whole_program(flow) if whole else reachable(flow, roots)
    if member:
        from pdlint.model.flowmembers import MemberError, member_edges
        from pdlint.model.flowprogram import check_facts
        from pdlint.model.names import Model

        try:
            starts = [*flow.modules, *flow.functions] if whole else roots
            if check_model is None:  # the whole program: every file's facts
                model = Model(check_facts(program.sources))
            else:  # the modules the value flow read, and what its queries load
                model = check_model.get()
                model.load_modules(flow.modules)
            edges = member_edges(model, starts, edges, member)
        except MemberError as exc:
            _fail(str(exc))
            return
        finally:
            if check_model is not None:
                check_model.close()
    elif check_model is not None:
        check_model.close()
    stats = {"calls": flow.calls, "dropped": flow.dropped}
    if graph_format == "pycg":
        text = graphs.to_pycg(edges)
    elif graph_format == "json":
        text = graphs.to_json(edges, roots, stats)
    elif graph_format == "dot":
        text = graphs.to_dot(edges)
    else:
        text = graphs.to_graphml(edges)
    if verbose:
        from pdlint.model.valueflow import WIDENED

        widened = sum(1 for d in flow.dropped_calls if d.reason == WIDENED)
        click.echo(
            f"pdlint: {flow.calls} call sites, {flow.calls - flow.dropped} resolved, "
            f"{flow.dropped} dropped (callee unknown; {widened} of them on widened values)",
            err=True,
        )
    if verbose > 1:
        from pdlint.source.discover import display_path

        where = {source.module: display_path(source.path) for source in program.sources}
        for call in sorted(flow.dropped_calls):
            click.echo(
                f"pdlint: dropped call: {where.get(call.module, call.module)}:{call.line}: "
                f"in `{call.caller}`: {call.reason}",
                err=True,
            )
    if output_path:
        with open(output_path, "w", encoding="utf-8") as handle:
            handle.write(text)
    else:
        click.echo(text, nl=False)


def install_requirement(extra: str) -> str:
    """The pip requirement installing this version of pdlint with ``extra`` (pdlint
    is installed from its repository's release tag, not from PyPI)."""
    return f"pdlint[{extra}] @ git+https://github.com/pdlint/pdlint@v{__version__}"


class _CheckModel:
    """The check's lazy model of the graph's files, made when first asked for: finding
    the entry points and ``--member`` share what it parsed. ``close`` ends it."""

    def __init__(self, sources: Iterable[FlowSource], settings: Settings) -> None:
        self.sources = list(sources)
        self.settings = settings
        self.made: tuple[Model, Any] | None = None

    def get(self) -> Model:
        if self.made is None:
            from pdlint.engine.run import lazy_model
            from pdlint.source.discover import SourceFile, display_path

            files = [SourceFile(s.path, display_path(s.path)) for s in self.sources]
            self.made = lazy_model(files, self.settings)
        return self.made[0]

    def close(self) -> None:
        if self.made is not None:
            self.made[1].close()


def _graph_roots(
    reader: ModuleReader,
    packs: list[Pack],
    settings: Settings,
    named: list[str],
    check_model: _CheckModel,
) -> list[str]:
    """The roots of ``pdlint graph``, as ``check`` finds its entry points: those the
    active packs, the settings and ``--entry-point`` name, else those its finder finds
    (on the check's lazy model, which parses what the finder asks for)."""
    from pdlint.engine.schedule import active_packs
    from pdlint.model.flowprogram import decode_entries, defining

    given = [*settings.entry_points, *named]
    modules = set(reader.sources)
    active = active_packs(packs, modules, explicit=settings.packs is not None)
    patterns = [*(e for pack in active for e in pack.entry_points), *given]
    roots = defining(reader, patterns) if patterns else []
    for pattern in given:
        if not any(name_matches(pattern, root) for root in roots):
            click.echo(
                f"pdlint: warning: entry point '{pattern}' matches no analysed function", err=True
            )
    return roots or decode_entries(check_model.get())


@cli.command("server")
@click.option("--stdio", is_flag=True, help="Speak LSP over stdin/stdout (the default).")
def server_command(stdio: bool) -> None:
    """Run the language server (needs the 'lsp' extra, see the README's install)."""
    try:
        from pdlint.server import serve
    except ImportError as exc:
        missing = (exc.name or str(exc)).split(".")[0]
        _fail(
            f"the language server needs the 'lsp' extra ({missing} is not installed): "
            f"pip install '{install_requirement('lsp')}' (from a clone: pip install '.[lsp]')"
        )
        return
    serve()


# Set by main(): this process ends after the command, so an analysis leaves its
# facts in _KEPT and main() ends the process without freeing them (freeing
# millions of small objects costs a noticeable part of a run), as mypy does.
_ENDING = False
_KEPT: list[object] = []


def main() -> None:
    """Console-script entry point."""
    global _ENDING
    _ENDING = True
    signal.signal(signal.SIGINT, _interrupted)
    try:
        cli(standalone_mode=True)
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    except Interrupted:
        # click's own Ctrl-C handling exits 1, which means "findings" here
        click.echo("\nAborted!", err=True)
        code = EXIT_INTERRUPTED
    except Exception as exc:  # an internal error: exit 2, never a silent 0
        click.echo(f"pdlint: internal error: {type(exc).__name__}: {exc}", err=True)
        code = EXIT_ERROR
    _end(code)


class Interrupted(BaseException):
    """Ctrl-C (SIGINT): not a KeyboardInterrupt, which click turns into exit 1."""


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def _interrupted(signum: int, frame: object) -> None:
    raise Interrupted


def _end(code: object) -> None:
    """Exit with ``code`` (as ``sys.exit`` reads it), skipping the interpreter's cleanup."""
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    for stream in (sys.stdout, sys.stderr):
        if stream is None or stream.closed:
            continue
        try:
            stream.flush()
        except (OSError, ValueError):  # a broken pipe: the status Python gives it
            status = status or 120
    os._exit(status)
