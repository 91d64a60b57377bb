"""The `codecompass` command: a thin layer over `Engine` (parse → engine → format)."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from codecompass.cli_common import (
    F,
    FreeTextCommand,
    console,
    data_dir_option,
    emit_json,
    err_console,
    json_option,
    missing_vectors,
    query_argument,
    reports_errors,
)
from codecompass.cli_links import links as links_command
from codecompass.cli_memory import memory as memory_commands
from codecompass.engine import Engine, parse_location
from codecompass.errors import InputError
from codecompass.graph.models import RPC_PREFIX
from codecompass.indexing.pipeline import IndexStats
from codecompass.indexing.pipeline import Progress as IndexProgress
from codecompass.mcp_config import CLIENTS as MCP_CLIENTS
from codecompass.models import ChunkFilter
from codecompass.schemas import FileHit, GraphResult, Hit, SymbolHit
from codecompass.search.format import DETAILS
from codecompass.search.rerank import WHY_KEY as RERANK_WHY_KEY
from codecompass.search.retrieve import MODES
from codecompass.settings import load_settings


def where_options(*, kind: bool = True, repo: bool = True) -> Callable[[F], F]:
    """--lang, --path (and --kind, --repo) gathered into one `where: ChunkFilter`."""

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            kwargs["where"] = ChunkFilter(
                language=kwargs.pop("language"),
                path_prefix=kwargs.pop("path_prefix"),
                kind=kwargs.pop("kind", None),
                repo=kwargs.pop("repo", None),
            )
            return func(*args, **kwargs)

        options = [
            click.option("--lang", "language", help="Only this language (python, typescript, …)."),
            click.option("--path", "path_prefix", help="Only paths starting with this prefix."),
        ]
        if kind:
            options.append(
                click.option("--kind", help="Only this kind (function, method, class, section, …).")
            )
        if repo:
            options.append(click.option("--repo", help="Only this repository."))
        decorated: Any = wrapper
        for option in reversed(options):
            decorated = option(decorated)
        return decorated  # type: ignore[no-any-return]

    return decorate


def print_code(text: str, language: str) -> None:
    """Source text exactly as it is: highlighted on a terminal, byte for byte in a
    pipe (no wrapping, no padding, no markup)."""
    if not console.is_terminal:
        click.echo(text)
        return
    from rich.syntax import Syntax

    lexer = "text" if language in ("text", "markdown", "rst") else language
    highlighted = Syntax(text, lexer).highlight(text)
    if highlighted.plain.endswith("\n") and not text.endswith("\n"):
        highlighted.right_crop(1)
    console.print(highlighted)


def located(repo: str, path: str, start: int, end: int, show_repo: bool) -> str:
    """`path:start-end`, with the repository first when the index holds several; escaped
    for console markup (a path may hold `[`)."""
    where = f"{repo}/{path}" if show_repo else path
    return escape(f"{where}:{start}-{end}")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="codecompass")
def main() -> None:
    """Code Compass: search and understand codebases, offline.

    \b
    Quick start:
      codecompass index .                 # index the repository you are in
      codecompass search "where is the token checked"
      codecompass status
    """


@main.command()
@click.argument("path", required=False, type=click.Path(path_type=Path))
@data_dir_option
@reports_errors
def init(path: Path | None, data_dir: Path | None) -> None:
    """Create the data folder (config.toml, .gitignore) for the folder PATH, to edit its
    settings before the first index.

    \b
    Examples:
      codecompass init
      codecompass init ~/src/api --data-dir ~/indexes/api
    """
    engine, _ = Engine.for_repo(path, data_dir=data_dir)
    folder = engine.init()
    console.print(f"Data folder ready: {folder}\nSettings: {folder / 'config.toml'}")


@main.command()
@click.argument("path", required=False, type=click.Path(path_type=Path))
@data_dir_option
@click.option("--name", help="Repository name (default: the folder name).")
@click.option("--full", is_flag=True, help="Re-read and re-parse every file (cache still used).")
@click.option(
    "--commit",
    metavar="REV",
    help="Index the repository as it is at this commit, read from git objects (no checkout).",
)
@click.option(
    "--watch",
    is_flag=True,
    help="Then keep watching the folder and re-index each batch of changes (Ctrl-C stops).",
)
@json_option
@reports_errors
def index(
    path: Path | None,
    data_dir: Path | None,
    name: str | None,
    full: bool,
    commit: str | None,
    watch: bool,
    as_json: bool,
) -> None:
    """Index (or update) the folder PATH (default: the git work tree you are in).
    Only changed files are processed.

    \b
    Examples:
      codecompass index
      codecompass index ../api --name api --data-dir ~/work/.codecompass
      codecompass index ~/src/proj.git --commit v1.2.0 --name proj --data-dir /tmp/proj
      codecompass index --watch            # index, then re-index each batch of changes
      codecompass index --watch --json     # one JSON object per batch, one per line
    """
    if commit is not None and watch:
        raise click.UsageError(
            "--watch follows the files of a work tree; --commit reads a commit from git "
            "objects. Use one or the other (`codecompass hooks install` re-indexes after "
            "each commit)."
        )
    if commit is not None:
        if path is None:
            raise click.UsageError("--commit needs PATH: a git work tree or bare repository.")
        engine = Engine(load_settings(data_dir))
        with engine, _progress(as_json, name or Path(path).name) as on_progress:
            stats = engine.index_commit(path, commit, name=name, on_progress=on_progress)
        if as_json:
            emit_json(stats.as_dict())
        else:
            _print_summary(stats, engine.settings.data_dir)
        return
    engine, root = Engine.for_repo(path, data_dir=data_dir)
    if watch:
        _watch(engine, root, name, full, as_json)
        return
    name = name or engine.name_for(root)
    with engine, _progress(as_json, name) as on_progress:
        stats = engine.index(root, name=name, full=full, on_progress=on_progress)
    if as_json:
        emit_json(stats.as_dict())
    else:
        _print_summary(stats, engine.settings.data_dir)


def _watch(engine: Engine, root: Path, name: str | None, full: bool, as_json: bool) -> None:
    """`index --watch`: the catch-up run (with progress and the usual summary), then one
    line, or one JSON object, per batch until Ctrl-C or SIGTERM."""
    import signal
    import time

    from codecompass.lifecycle.watch import BatchReport, Watcher, WatchTarget, check_watchable

    check_watchable(engine.settings)
    name = name or engine.name_for(root)
    progress = contextlib.ExitStack()  # the catch-up's progress line, closed once it ends
    report_progress: list[Callable[[IndexProgress], None] | None] = []

    def on_progress(update: IndexProgress) -> None:
        if not report_progress:
            report_progress.append(progress.enter_context(_progress(as_json, name)))
        if report_progress[0] is not None:
            report_progress[0](update)

    def on_batch(report: BatchReport) -> None:
        progress.close()
        if as_json:
            click.echo(json.dumps(report.as_dict(), ensure_ascii=False))
            return
        if report.trigger == "start" and report.stats is not None:
            _print_summary(report.stats, engine.settings.data_dir)
            console.print(escape(f"Watching {root} for changes (Ctrl-C stops)."))
        else:
            console.print(escape(f"{time.strftime('%H:%M:%S')} {report.line()}"))

    watcher = Watcher(
        engine, [WatchTarget(name, root)], on_batch=on_batch, on_progress=on_progress, full=full
    )
    # SIGTERM lets a run under way finish; Ctrl-C stops at once (the next run repairs).
    previous = signal.signal(signal.SIGTERM, lambda *_: watcher.stop())
    try:
        with engine, progress:
            watcher.run()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    if not as_json:
        err_console.print("Stopped watching.")


@contextmanager
def _progress(quiet: bool, label: str) -> Iterator[Callable[[IndexProgress], None] | None]:
    """Progress on stderr: a live line on a terminal, a line every few seconds in a log
    or a pipe; none with --json (its output is for programs)."""
    if quiet:
        yield None
        return
    from codecompass.cli_progress import progress_reporter

    with progress_reporter(label, sys.stderr, terminal=err_console.is_terminal) as report:
        yield report


def _skipped(stats: IndexStats) -> str:
    """Each reason with its count and the first files it left out."""
    parts = []
    for reason, count in sorted(stats.skipped.items()):
        shown = stats.skipped_examples.get(reason, [])
        more = f", {count - len(shown)} more" if count > len(shown) else ""
        parts.append(
            f"{reason} {count} ({', '.join(shown)}{more})" if shown else f"{reason} {count}"
        )
    return "; ".join(parts)


def _languages(stats: IndexStats) -> str:
    """Files parsed per language, those chunked without symbols, and missing grammars."""
    from codecompass.indexing.languages import EXTRA_INSTALL_HINT, EXTRA_LANGUAGES

    ranked = sorted(stats.languages.items(), key=lambda item: (-sum(item[1].values()), item[0]))
    parts = []
    for language, counts in ranked:
        total = counts["symbols"] + counts["chunked"]
        chunked = f" ({counts['chunked']} without symbols)" if counts["chunked"] else ""
        parts.append(f"{language} {total}{chunked}")
    text = ", ".join(parts)
    if stats.missing_grammars:
        extra = set(stats.missing_grammars) & EXTRA_LANGUAGES
        hint = EXTRA_INSTALL_HINT if extra else "reinstall codecompass"
        text += (
            f"; no grammar installed for {', '.join(stats.missing_grammars)}, "
            f"chunked by lines: {hint}"
        )
    return text


def _print_summary(stats: IndexStats, data_dir: Path) -> None:
    table = Table(title=f"Indexed {stats.repo} in {stats.wall_seconds:.1f}s", show_header=False)
    table.add_column(style="bold")
    table.add_column()
    table.add_row(
        "files",
        f"{stats.files_seen} seen: {stats.new} new, {stats.changed} changed, "
        f"{stats.unchanged} unchanged, {stats.renamed} renamed, {stats.removed} removed"
        + (
            f"; {stats.upgraded} read again (stored by another version of the reader)"
            if stats.upgraded
            else ""
        ),
    )
    table.add_row("skipped", _skipped(stats) or "none")
    table.add_row("chunks", f"{stats.chunks_added} added, {stats.chunks_removed} tombstoned")
    rate = stats.texts_embedded / stats.seconds["embed"] if stats.seconds["embed"] else 0.0
    table.add_row(
        "embeddings",
        f"{stats.texts_embedded} computed ({rate:.0f}/s), {stats.texts_cached} from cache",
    )
    if stats.parse_errors:
        table.add_row("parse errors", f"{stats.parse_errors} files fell back to line windows")
    if stats.languages:
        table.add_row("languages", _languages(stats))
    if stats.decode_errors:
        more = ", …" if stats.decode_errors > len(stats.decode_examples) else ""
        table.add_row(
            "decode errors",
            f"{stats.decode_errors} files not valid in their encoding, read with a fallback: "
            f"{', '.join(stats.decode_examples)}{more} (`codecompass status` lists them)",
        )
    if stats.vectors_repaired:
        table.add_row("repaired", f"{stats.vectors_repaired} vectors")
    table.add_row(
        "time", ", ".join(f"{k} {v:.2f}s" for k, v in stats.seconds.items() if v >= 0.005)
    )
    graph = stats.graph
    if graph.get("resolved") or graph.get("removed"):
        table.add_row(
            "graph",
            f"{graph['resolved']} files linked ({graph['dependents']} because a file they use "
            f"changed), {graph['edges_written']} edges written",
        )
    table.add_row("index", str(data_dir))
    console.print(table)


@main.command(cls=FreeTextCommand)
@query_argument
@data_dir_option
@click.option("-k", "k", type=click.IntRange(min=1, max=200), default=None, help="Results.")
@where_options()
@click.option("--detail", type=click.Choice(DETAILS), default=None, help="Snippet size.")
@click.option("--explain", is_flag=True, help="Show why each result came back.")
@click.option("--files", "files_view", is_flag=True, help="Rank files instead of code chunks.")
@click.option(
    "--symbols",
    "symbols_view",
    is_flag=True,
    help="Rank functions, methods and classes (with their file's evidence).",
)
@click.option("--mode", type=click.Choice(MODES), default=None, help="Retrieval mode.")
@click.option("--subgraph", is_flag=True, help="Add the graph around the hits (with --json).")
@click.option(
    "--rerank/--no-rerank",
    default=None,
    help="Have the [llm] chat model reorder the best hits (default: [llm] rerank).",
)
@json_option
@reports_errors
def search(
    query: str,
    data_dir: Path | None,
    k: int | None,
    where: ChunkFilter,
    detail: str | None,
    explain: bool,
    files_view: bool,
    symbols_view: bool,
    mode: str | None,
    subgraph: bool,
    rerank: bool | None,
    as_json: bool,
) -> None:
    """Search the index with words, identifiers, paths, an issue or a traceback.

    --files and --symbols choose the ranking printed; --json prints all three (results,
    files, symbols), whichever is chosen.

    With --rerank, the chat model set in [llm] reorders the best [llm] rerank_candidates
    hits, or files or symbols with --files or --symbols (one prompt within [llm]
    rerank_tokens); if it fails, the order stays as it was and a warning says why.

    \b
    Examples:
      codecompass search "parse the config file"
      codecompass search verify_token --kind function -k 5 --json
      codecompass search "$(cat traceback.txt)" --files --explain
      codecompass search "$(cat issue.md)" --symbols
      codecompass search - --files < issue.md      (the query from standard input)
      codecompass search "where are refunds computed" --rerank --explain
    """
    with Engine.open(data_dir) as engine:
        want = engine.wants_rerank(rerank)
        top = k or engine.settings.search.top_k
        view = "symbols" if symbols_view else "files" if files_view else "hits"
        options = engine.search_options(
            k=engine.rerank_pool(top) if want else k,
            where=where,
            detail=detail,
            mode=mode,
            max_files=k,
            max_symbols=k,
            subgraph=subgraph,
            view=view if want else None,
        )
        result = engine.retrieve(query, options)
        hits, info = result.hits, None
        if want:  # the view's list (as hits) in the model's order
            reranked = engine.rerank(query, result.hits)
            hits, info = reranked.hits[:top], reranked.info
            if symbols_view:
                result.symbols = _in_order(
                    result.symbols, hits, lambda i: (i.repo, i.path, i.symbol)
                )
            if files_view:
                result.files = _in_order(result.files, hits, lambda i: (i.repo, i.path))
        show_repo = len(engine.repo_names()) > 1
        dense = result.coverage.get("dense", 1.0)
        indexing = engine.indexing_now() if dense < 1.0 else []
    if result.stale and not as_json:
        shown = ", ".join(result.stale[:3]) + (", …" if len(result.stale) > 3 else "")
        err_console.print(
            f"[yellow]{len(result.stale)} cited file(s) changed on disk since indexed "
            f"({escape(shown)}); run `codecompass index` to refresh.[/yellow]",
            highlight=False,
        )
    if dense < 1.0:
        err_console.print(
            f"[yellow]Dense search saw {dense:.0%} of the chunks: "
            f"{missing_vectors(indexing)}.[/yellow]",
            highlight=False,
        )
    if info is not None and not info.used and not as_json:
        err_console.print(
            f"[yellow]Not reranked: {escape(info.reason or '')}[/yellow]", highlight=False
        )
    if as_json:
        reordered = (
            {"results": [h.as_dict() for h in hits], "rerank": info.as_dict()} if info else {}
        )
        emit_json({"query": query, **result.as_dict(), **reordered})
        return
    if info is not None and info.used:
        console.print(
            f"[dim]reranked by {escape(info.model or info.by or '')} "
            f"({info.candidates} candidates, {info.prompt_tokens} prompt tokens)[/dim]",
            highlight=False,
        )
    if explain:
        understood = {key: v for key, v in result.query.as_dict().items() if v}
        understood_text = escape(json.dumps(understood, ensure_ascii=False))
        console.print(f"[dim]understood: {understood_text}[/dim]")
    if files_view:
        for n, f in enumerate(result.files, start=1):
            symbols = escape(", ".join(f.symbols[:3]))
            shown = escape(f"{f.repo}/{f.path}" if show_repo else f.path)
            tested = f.why.get("tested_by")
            vouched = (
                f"  [dim]tested by {escape(tested['path'])} (+{tested['contribution']:.4f})[/dim]"
                if tested
                else ""
            )
            console.print(
                f"[bold]{n}. {shown}[/bold]  [dim]{uses_note(f.why)}score {f.score:.4f}"
                f"{raised_note(f.why)}[/dim]"
                f"  [cyan]{symbols}"
                f"[/cyan]{vouched}{copies_note(f.why)}"
            )
        if not result.files:
            console.print("No results.")
        return
    if symbols_view:
        for n, sym in enumerate(result.symbols, start=1):
            location = located(sym.repo, sym.path, sym.start_line, sym.end_line, show_repo)
            evidence = sym.why.get("best_chunk_lines")
            best = f"best lines {evidence[0]}-{evidence[1]}, " if evidence else ""
            spread = sym.why.get("spread_for_file")
            if spread:
                best += f"best of file #{spread}, "
            best += uses_note(sym.why)
            console.print(
                f"[bold]{n}. {location}[/bold]  [cyan]{sym.kind} {escape(sym.symbol)}[/cyan]  "
                f"[dim]{best}score {sym.score:.4f} ({own_note(sym.why)}chunk "
                f"{sym.why['chunk_score']:.4f}, "
                f"file {sym.why['file_share']:.4f} of {sym.why['file_score']:.4f})[/dim]"
                f"{copies_note(sym.why)}"
            )
        if not result.symbols:
            console.print("No results.")
        return
    if not hits:
        console.print("No results.")
        return
    for n, hit in enumerate(hits, start=1):
        location = located(hit.repo, hit.path, hit.start_line, hit.end_line, show_repo)
        name = f"{hit.kind} {hit.symbol}" if hit.symbol else hit.kind
        console.print(
            f"[bold]{n}. {location}[/bold]  [cyan]{escape(name)}[/cyan]  "
            f"[dim]{uses_note(hit.why)}score {hit.score:.4f}[/dim]{copies_note(hit.why)}"
        )
        if explain:
            for line in explain_lines(hit.why):
                console.print(f"   [dim]{escape(line)}[/dim]", highlight=False)
        print_code(hit.snippet, hit.language)


def own_note(why: dict[str, Any]) -> str:
    """`own 2.5400: ` for a result shown at the score of the one after it (brought
    forward: the best chunk's symbol, a leading file's best symbol, a user of a named
    symbol)."""
    own = why.get("own_score")
    return f"own {own:.4f}: " if own is not None else ""


def raised_note(why: dict[str, Any]) -> str:
    """` (own 2.5400)` for a file shown above its own total: the best chunk's file, or
    one brought forward."""
    own = why.get("own_score")
    return f" (own {own:.4f})" if own is not None else ""


def uses_note(why: dict[str, Any]) -> str:
    """`uses Vote.cast, ` for a result answering a question about what uses that name;
    `runs for Symbol, ` for a special method the query's code runs on a class it names;
    `raises NoSuchCommand, ` for code raising the exception that formats a message;
    `guards ChangeList.get_filters, ` for the check above the line holding a message."""
    links = (
        ("caller_of", "uses"),
        ("special_of", "runs for"),
        ("raises", "raises"),
        ("guard_of", "guards"),
    )
    for key, verb in links:
        if target := why.get(key):
            return f"{verb} {escape(target.rpartition('#')[2])}, "
    return ""


def copies_note(why: dict[str, Any]) -> str:
    """`  also in a, b (+2)` for a result standing for identical copies of its file."""
    copies = why.get("copies") or []
    if not copies:
        return ""
    more = f" (+{len(copies) - 2})" if len(copies) > 2 else ""
    return f"  [dim]also in {escape(', '.join(copies[:2]))}{more}[/dim]"


def explain_lines(why: dict[str, Any]) -> list[str]:
    """`why` for people: feature contributions, matched terms, the graph path."""
    features = why.get("features", {})
    parts = [
        f"{name} {f['value']:.2f}×{f['weight']:g}={f['contribution']:.3f}"
        for name, f in sorted(features.items(), key=lambda kv: -kv[1]["contribution"])
    ]
    lines = ["why: " + (", ".join(parts) or "no feature fired")]
    if why.get("file_share"):
        first = ""
        if why.get("first_as_best_chunk"):
            raised = why.get("raised_by", 0.0)
            first = f" + {raised:.4f} to the list's best, first as the best chunk of all"
        lines.append(
            f"score: chunk {why['chunk_score']:.4f} + file share {why['file_share']:.4f}{first}"
        )
    sources = why.get("sources", {})
    if sources:
        lines.append("found by: " + ", ".join(f"{s} #{r}" if r else s for s, r in sources.items()))
    if why.get("matched_terms"):
        lines.append("matched: " + " ".join(why["matched_terms"][:12]))
    if why.get("graph_path"):
        lines.append("graph: " + " ".join(why["graph_path"]))
    if why.get(RERANK_WHY_KEY):
        lines.append(f"reranked: #{why[RERANK_WHY_KEY]} before")
    return lines


V = TypeVar("V", FileHit, SymbolHit)


def _in_order(view: list[V], hits: list[Hit], key: Callable[[Any], tuple[Any, ...]]) -> list[V]:
    """`view` in the order of its reranked hits (an item's best chunk is its hit), by
    `key`: the file, or the file and symbol."""
    place = {key(hit): i for i, hit in enumerate(hits)}
    return sorted((item for item in view if key(item) in place), key=lambda i: place[key(i)])


@main.command()
@data_dir_option
@json_option
@reports_errors
def status(data_dir: Path | None, as_json: bool) -> None:
    """Show what is indexed, the model, the last run and files changed since.

    \b
    Examples:
      codecompass status
      codecompass status --data-dir ~/indexes/api --json
    """
    with Engine.open(data_dir) as engine:
        info = engine.status()
    if as_json:
        emit_json(info)
        return
    folder = escape(str(info["data_dir"]))
    console.print(f"[bold]Index[/bold] {folder}  model {info['model']} ({info['dim']}-d)")
    stored, chunks = info["vectors"]["stored"], info["vectors"]["active_chunks"]
    if stored < chunks:
        console.print(
            f"[yellow]vectors: {stored} for {chunks} active chunks: "
            f"{missing_vectors(info['indexing_now'])}.[/yellow]",
            highlight=False,
        )
    for repo in info["repos"]:
        run = repo["last_run"] or {}
        changed = repo["changed_on_disk"]
        console.print(
            f"[bold]{escape(repo['id'])}[/bold] {escape(repo['root'])}\n"
            f"  {repo['files']} files, {repo['symbols']} symbols, {repo['chunks']} chunks, "
            f"{repo['tombstones']} tombstones, {repo['parse_errors']} parse errors, "
            f"{repo['decode_errors']} decode errors\n"
            f"  last run {run.get('finished_at')} ({run.get('status')}), "
            f"commit {repo['last_commit'] or '-'}\n"
            f"  changed on disk since: {changed.get('added', 0)} added, "
            f"{changed.get('changed', 0)} changed, {changed.get('removed', 0)} removed",
            highlight=False,
        )
        stale = changed.get("files", [])
        for item in stale[:STATUS_STALE_SHOWN]:
            console.print(escape(f"    {item['change']:<8} {item['path']}"), highlight=False)
        hidden = len(stale) - STATUS_STALE_SHOWN + changed.get("more", 0)
        if hidden > 0:
            console.print(f"    … and {hidden} more (`codecompass status --json` lists them)")
        if stale:
            console.print("  run `codecompass index` to bring them in", highlight=False)
        if repo["files_to_read_again"]:
            console.print(
                f"  [yellow]{repo['files_to_read_again']} files were stored by another version "
                "of the reader: run `codecompass index` to read them again (no --full "
                "needed)[/yellow]",
                highlight=False,
            )
        for key in ("decode_error_files", "parse_error_files"):
            bad = repo[key]
            for item in bad[:STATUS_PROBLEMS_SHOWN]:
                console.print(escape(f"  {item['path']}: {item['problem']}"), highlight=False)
            if len(bad) > STATUS_PROBLEMS_SHOWN:
                console.print(
                    f"  … and {len(bad) - STATUS_PROBLEMS_SHOWN} more "
                    f"(`codecompass status --json` lists them as {key})",
                    highlight=False,
                )


STATUS_STALE_SHOWN = 20  # stale files a status on a console lists per repository
STATUS_PROBLEMS_SHOWN = 5  # files of each problem (decoding, parsing) it lists


@main.command(name="open")
@click.argument("location")
@data_dir_option
@click.option("--repo", help="Repository name when several are indexed.")
@json_option
@reports_errors
def open_(location: str, data_dir: Path | None, repo: str | None, as_json: bool) -> None:
    """Print a file, or a line range: PATH, PATH:START, PATH:START-END or PATH:START-
    (to the end). Paths are relative to the repository root, as search shows them.

    \b
    Examples:
      codecompass open src/app.py:40-60
      codecompass open README.md --repo api --json
    """
    path, start, end = parse_location(location)
    with Engine.open(data_dir) as engine:
        view = engine.open_file(path, start, end, repo=repo)
    if as_json:
        emit_json(view.as_dict())
        return
    location = escape(f"{view.path}:{view.start_line}-{view.end_line}")
    console.print(f"[bold]{location}[/bold] of {view.total_lines}")
    click.echo(view.text)


@main.command(name="eval")
@click.argument("tasks_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@data_dir_option
@click.option(
    "--git",
    "git_specs",
    multiple=True,
    metavar="REPO=PATH",
    help="Git repository (clone or bare) holding the commits of REPO, for localization tasks.",
)
@click.option(
    "--as-indexed",
    is_flag=True,
    help="Localization tasks: query the index in --data-dir as it stands, checking out no "
    "commit (a quick proxy: gold code the indexed commit lacks counts as a miss).",
)
@click.option("--ablation", is_flag=True, help="Compare bm25, dense, hybrid and hybrid+graph.")
@click.option("--mode", type=click.Choice(MODES), default=None, help="Only this mode.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="First N tasks only.")
@click.option(
    "--dump-features",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write every candidate's features per task (JSONL) for tuning the weights.",
)
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the full report."
)
@json_option
@reports_errors
def eval_(
    tasks_file: Path,
    data_dir: Path | None,
    git_specs: tuple[str, ...],
    as_indexed: bool,
    ablation: bool,
    mode: str | None,
    limit: int | None,
    dump_features: Path | None,
    out: Path | None,
    as_json: bool,
) -> None:
    """Score retrieval on golden queries or localization tasks (JSONL).

    Golden queries run against the index in --data-dir. Localization tasks (SWE-bench
    style) index each base commit from git objects into --data-dir, oldest first; with
    --as-indexed they run against the index as it stands (repository `owner/name` is
    the one indexed as `name`, or the index's only repository when all tasks name one).

    \b
    Examples:
      codecompass eval golden.jsonl --data-dir .codecompass --ablation
      codecompass eval swebench_lite_dev.jsonl --git sympy/sympy=~/src/sympy \\
          --data-dir /tmp/eval-sympy --ablation --out report.json
      codecompass eval swebench_lite_dev.jsonl --as-indexed --data-dir ~/src/sympy/.codecompass
    """
    from codecompass.evaluation import (
        ABLATION_MODES,
        load_tasks,
        run_golden,
        run_localization,
        run_localization_as_indexed,
    )

    if as_indexed and git_specs:
        raise click.BadParameter(
            "--as-indexed checks out no commit; drop --git", param_hint="--git"
        )
    tasks = load_tasks(tasks_file)
    git_dirs: dict[str, Path] = {}
    for spec in git_specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise click.BadParameter(f"{spec!r}: use REPO=PATH", param_hint="--git")
        git_dirs[name] = Path(path).expanduser()
    modes: tuple[str, ...] = ABLATION_MODES if ablation else ()
    log = None if as_json else (lambda line: err_console.print(line, highlight=False))
    reports: list[dict[str, Any]] = []
    with contextlib.ExitStack() as stack:
        dump = None
        if dump_features is not None:
            dump = stack.enter_context(dump_features.open("w", encoding="utf-8"))
        if tasks.golden:
            with Engine.open(data_dir) as engine:
                chosen = modes or (mode or engine.settings.search.mode,)
                reports.append(
                    run_golden(engine, tasks.golden[:limit], modes=chosen, dump=dump, log=log)
                )
        if tasks.localization and as_indexed:
            with Engine.open(data_dir) as engine:
                chosen = modes or (mode or engine.settings.search.mode,)
                reports.append(
                    run_localization_as_indexed(
                        engine, tasks.localization[:limit], modes=chosen, dump=dump, log=log
                    )
                )
        elif tasks.localization:
            with Engine(load_settings(data_dir)) as engine:
                chosen = modes or (mode or engine.settings.search.mode,)
                reports.append(
                    run_localization(
                        engine,
                        tasks.localization[:limit],
                        git_dirs,
                        modes=chosen,
                        dump=dump,
                        log=log,
                    )
                )
    report = {"tasks_file": str(tasks_file), "reports": reports}
    if out is not None:
        out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    if as_json:
        emit_json(report)
        return
    for part in reports:
        _print_eval(part)


def _short_column(column: str) -> str:
    return (
        column.replace("function_acc", "fn")
        .replace("file_acc", "file")
        .replace("recall", "R")
        .replace("latency_", "")
        .replace("_ms", "")
        .replace("token_ratio", "tok")
    )


SIGNATURE_CHARS = 80  # of a signature in `symbol`'s table, which keeps a row a line


def _print_table(
    headers: list[str], rows: list[list[str]], *, title: str | None = None, left: int = 0
) -> None:
    """Print a table no cell of which is cut, one line a row, wider than the console if
    it must be: on a piped console (80 columns) rich cut cells to fit, `100.0` to `10…`,
    a path to `sympy/sympy/simp…`. Cells are text, not markup. Columns from `left` on
    (the figures) are right-justified; 0: none."""
    table = Table(title=title)
    for i, header in enumerate(headers):
        table.add_column(header, justify="right" if 0 < left <= i else "left", no_wrap=True)
    for row in rows:
        table.add_row(*map(Text, row))  # as written: `list[int]` is no markup
    natural = Measurement.get(console, console.options.update(max_width=10**6), table).maximum
    width = console.width
    console.width = max(width, natural)
    try:
        console.print(table)
    finally:
        console.width = width


def _print_eval(report: dict[str, Any]) -> None:
    if report["kind"] == "localization":
        columns = [
            "file_acc@1",
            "file_acc@3",
            "file_acc@5",
            "function_acc@5",
            "function_acc@10",
            "hits_file_acc@5",  # the same from the ranked hits: the views should do as well
            "hits_function_acc@10",
        ]
    else:
        columns = ["recall@1", "recall@5", "recall@10", "mrr", "ndcg@10"]
    columns += ["latency_p50_ms", "latency_p95_ms", "token_ratio"]
    headers = ["mode", *map(_short_column, columns)]
    rows = [[row["mode"], *(str(row.get(c, "-")) for c in columns)] for row in report["modes"]]
    title = f"{report['kind']} ({report['modes'][0]['n']} tasks)"
    if report["kind"] == "localization":  # as LocAgent and SweRank count it
        title += "; acc@k: every gold file or function within the first k"
    _print_table(headers, rows, title=title, left=1)
    if report.get("by_type"):
        quality = columns[:-3]  # the same metrics, without latency and tokens
        headers = ["type", "mode", "n", *map(_short_column, quality)]
        rows = [
            [row["type"], row["mode"], str(row["n"]), *(str(row.get(c, "-")) for c in quality)]
            for row in report["by_type"]
        ]
        _print_table(headers, rows, title="by query type", left=2)
    if "indexing" in report:
        ix = report["indexing"]
        console.print(
            f"indexing: {ix['commits']} commits in {ix['seconds']}s, "
            f"{ix['texts_embedded']} texts embedded, cache hit rate {ix['cache_hit_rate']}"
        )
    if "as_indexed" in report:
        at = ", ".join(
            f"{name}@{(commit or '?')[:10]}" for name, commit in report["as_indexed"].items()
        )
        console.print(f"as indexed: {at} (no task's own commit was checked out)")


@main.command()
@data_dir_option
@click.option("--http", "use_http", is_flag=True, help="Streamable HTTP instead of stdio.")
@click.option(
    "--host",
    default=None,
    help="HTTP bind address (default 127.0.0.1). Any other needs CODECOMPASS_SERVER_TOKEN.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=None, help="HTTP port (8765).")
@click.option(
    "--watch",
    is_flag=True,
    help="Also watch the indexed work trees and re-index changes in the background.",
)
@reports_errors
def serve(
    data_dir: Path | None, use_http: bool, host: str | None, port: int | None, watch: bool
) -> None:
    """Run the MCP server that AI agents use (stdio unless --http).

    \b
    Examples:
      codecompass serve --data-dir ~/src/app/.codecompass    # stdio (Claude Code, Cursor, …)
      codecompass serve --http --port 8765                   # http://127.0.0.1:8765/mcp
      CODECOMPASS_SERVER_TOKEN=$(openssl rand -hex 32) codecompass serve --http --host 0.0.0.0
      codecompass serve --watch    # and keep the index current as files change (stderr logs)
    See docs/mcp.md for each client's configuration.
    """
    from codecompass.mcp_server import serve as run_server
    from codecompass.service import data_dir_for_serve
    from codecompass.settings import load_settings

    if (host or port is not None) and not use_http:
        raise click.UsageError("--host and --port apply to --http only.")
    settings = load_settings(data_dir_for_serve(data_dir))
    run_server(settings, http=use_http, host=host, port=port, watch=watch)


@main.command()
@data_dir_option
@click.option(
    "--host",
    default=None,
    help="Bind address (default 127.0.0.1). Any other needs CODECOMPASS_SERVER_TOKEN.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=None, help="Port ([ui] port, 8766).")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the browser.")
@reports_errors
def ui(data_dir: Path | None, host: str | None, port: int | None, open_browser: bool) -> None:
    """Run the web UI: search with why each result came back, the graph that explains
    the results, a symbol explorer, and the index's status.

    \b
    Examples:
      codecompass ui --open                       # http://127.0.0.1:8766/ in your browser
      codecompass ui --data-dir ~/src/app/.codecompass --port 9000
      CODECOMPASS_SERVER_TOKEN=$(openssl rand -hex 32) codecompass ui --host 0.0.0.0
    Keys: / focuses the query, ↑/↓ (or j/k) move through results, Enter opens one.
    See docs/web.md for the page and its JSON endpoints.
    """
    from codecompass.service import data_dir_for_serve
    from codecompass.settings import load_settings
    from codecompass.web import serve_ui

    settings = load_settings(data_dir_for_serve(data_dir))
    serve_ui(settings, host=host, port=port, open_browser=open_browser)


@main.command(name="mcp-config")
@click.argument("client", type=click.Choice(MCP_CLIENTS, case_sensitive=False))
@data_dir_option
@reports_errors
def mcp_config(client: str, data_dir: Path | None) -> None:
    """Print the MCP server entry for CLIENT, with this installation's absolute paths and
    the index to serve (the nearest one, or --data-dir). Where it goes is on stderr.

    \b
    Examples:
      codecompass mcp-config claude-code > .mcp.json
      codecompass mcp-config vscode --data-dir ~/src/app/.codecompass
      codecompass mcp-config codex >> ~/.codex/config.toml
    """
    from codecompass.engine import find_data_dir
    from codecompass.mcp_config import render

    if data_dir is None:
        data_dir = find_data_dir(Path.cwd().resolve())
        if data_dir is None:
            raise InputError(
                f"No index found in {Path.cwd()} or its parents; run `codecompass index` "
                "first, or pass the index folder with --data-dir."
            )
    config = render(client.lower(), data_dir.resolve())
    click.echo(config.text.rstrip("\n"))
    err_console.print(f"[dim]Put this in {escape(config.where)}.[/dim]", highlight=False)
    if config.command_line:
        err_console.print(f"[dim]Or run: {escape(config.command_line)}[/dim]", highlight=False)


@main.command()
@data_dir_option
@click.option("--repair", is_flag=True, help="Fix what can be fixed, then check again.")
@json_option
@reports_errors
def verify(data_dir: Path | None, repair: bool, as_json: bool) -> None:
    """Check the index against its files and itself: the database, every indexed file's
    hash on disk, one vector per active chunk, edges into files and symbols that exist.
    Exit code 1 when something is (still) wrong.

    \b
    Examples:
      codecompass verify
      codecompass verify --repair --json
    """
    with Engine.open(data_dir) as engine:
        report = engine.verify(repair=repair)
    if as_json:
        emit_json(report.as_dict())
    else:
        checked = ", ".join(f"{n} {what}" for what, n in report.checked.items())
        console.print(f"checked {checked}", highlight=False)
        for f in report.findings:
            mark = "repairable" if f.repairable else "not repairable"
            console.print(f"[red]{f.check}[/red]: {escape(f.problem)} [dim]({mark})[/dim]")
        for done in report.repaired:
            console.print(f"[green]repaired[/green]: {escape(done)}", highlight=False)
        if report.remaining is not None:
            for f in report.remaining:
                console.print(f"[red]still wrong[/red] {f.check}: {escape(f.problem)}")
        if report.ok:
            console.print("[green]ok[/green]" + (" after repair" if report.repaired else ""))
        elif not repair:
            console.print("Run `codecompass verify --repair` to fix what can be fixed.")
    if not report.ok:
        raise SystemExit(1)


@main.command()
@data_dir_option
@json_option
@reports_errors
def doctor(data_dir: Path | None, as_json: bool) -> None:
    """Check the installation (grammars, MCP SDK, embedding model), the settings and the
    index (vectors, freshness), and say what to fix. Exit code 1 when a check fails.

    \b
    Examples:
      codecompass doctor
      codecompass doctor --data-dir ~/src/app/.codecompass --json
    """
    from codecompass.doctor import run_checks

    checks = run_checks(data_dir)
    failed = any(c.status == "fail" for c in checks)
    if as_json:
        emit_json({"ok": not failed, "checks": [c.as_dict() for c in checks]})
    else:
        marks = {
            "ok": "[green]ok  [/green]",
            "warn": "[yellow]warn[/yellow]",
            "fail": "[red]FAIL[/red]",
        }
        for c in checks:
            console.print(f"{marks[c.status]} {c.name:<10} {escape(c.detail)}", highlight=False)
            if c.fix:
                console.print(f"     {'':<10} [dim]→ {escape(c.fix)}[/dim]", highlight=False)
    if failed:
        raise SystemExit(1)


@main.command(cls=FreeTextCommand)
@query_argument
@data_dir_option
@click.option("-k", "top_k", type=click.IntRange(1, 50), default=8, help="Evidences to use.")
@click.option("--repo", "scope", multiple=True, help="Only this repository (repeatable).")
@where_options(kind=False, repo=False)
@click.option("--min-score", type=float, default=0.0, help="Drop weaker results.")
@click.option(
    "--rerank/--no-rerank",
    default=None,
    help="Have the [llm] chat model reorder the evidence first (default: [llm] rerank).",
)
@json_option
@reports_errors
def ask(
    query: str,
    data_dir: Path | None,
    top_k: int,
    scope: tuple[str, ...],
    where: ChunkFilter,
    min_score: float,
    rerank: bool | None,
    as_json: bool,
) -> None:
    """Answer a question about the code, citing evidence [n] for every claim.

    Uses the chat model set in [llm] (any OpenAI-compatible endpoint: Ollama, llama.cpp,
    vLLM, OpenAI); without one, an extractive answer that lists what the evidence shows.

    \b
    Examples:
      codecompass ask "how are expired sessions cleaned up?"
      codecompass ask "where is the retry policy configured" --repo api -k 5 --json
      codecompass ask "why does checkout retry twice?" --rerank
    """
    with Engine.open(data_dir) as engine:
        result = engine.ask(
            query,
            scope=list(scope) or None,
            top_k=top_k,
            where=where,
            min_score=min_score,
            rerank=rerank,
        )
    if as_json:
        emit_json(result.as_dict())
        return
    if result.rerank is not None and not result.rerank.used:
        err_console.print(
            f"[yellow]Not reranked: {escape(result.rerank.reason or '')}[/yellow]",
            highlight=False,
        )
    if result.provider_error:
        err_console.print(
            f"[yellow]The chat model failed; answering extractively.[/yellow] "
            f"{result.provider_error}"
        )
    source = f"answer from {result.model}" if result.mode == "llm" else f"{result.mode} answer"
    console.print(
        f"[dim]{source} · {result.total_matches} matches, {len(result.evidences)} used[/dim]"
    )
    click.echo(result.answer)
    if result.evidences:
        console.print("\n[bold]Evidence[/bold]")
        for e in result.evidences:
            name = f"  [cyan]{escape(e.symbol)}[/cyan]" if e.symbol else ""
            console.print(escape(f"[{e.n}] {e.location}") + name, highlight=False)


@main.command()
@data_dir_option
@click.option("--days", type=click.IntRange(min=1), default=None, help="Only the last N days.")
@json_option
@reports_errors
def stats(data_dir: Path | None, days: int | None, as_json: bool) -> None:
    """Tool-call latency (p50/p95), no-hit and evidence rates, indexing volumes, provider
    errors: read from the audit log that `codecompass serve` keeps.

    \b
    Examples:
      codecompass stats
      codecompass stats --days 7 --json
    """
    from datetime import UTC, datetime, timedelta

    since = (datetime.now(UTC) - timedelta(days=days)).isoformat() if days else None
    with Engine.open(data_dir) as engine:
        info = engine.usage_stats(since)
    if as_json:
        emit_json(info)
        return
    rows = [
        [
            tool,
            str(t["calls"]),
            str(t["errors"]),
            f"{t['p50_ms']:.1f}",
            f"{t['p95_ms']:.1f}",
            str(t["no_hit"]) if t["answered"] else "-",
        ]
        for tool, t in info["tools"].items()
    ]
    headers = ["tool", "calls", "errors", "p50 ms", "p95 ms", "no hit"]
    title = f"Tool calls{f' (last {days} days)' if days else ''}"
    _print_table(headers, rows, title=title, left=1)

    def rate(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.1f}%"

    totals = info["indexing"]["totals"]
    errors = ", ".join(f"{k} {v}" for k, v in info["provider_errors"].items()) or "none"
    console.print(
        f"no-hit rate {rate(info['no_hit_rate'])} · evidence rate {rate(info['evidence_rate'])}"
        f" · provider errors: {errors}\n"
        f"indexing: {totals['runs']} runs, {totals['files_indexed']} files indexed, "
        f"{totals['chunks_added']} chunks added, {totals['texts_embedded']} texts embedded "
        f"({', '.join(f'{k} {v}' for k, v in info['indexing']['runs_by_status'].items())})",
        highlight=False,
    )


# -- code graph -----------------------------------------------------------------------
types_option = click.option(
    "--types",
    "types",
    multiple=True,
    help="Edge types, comma-separated or repeated: calls, imports, extends, implements, "
    "references, contains, keyword, similar, http, package, emits, listens, event.",
)
depth_option = click.option(
    "--depth", type=click.IntRange(min=0, max=10), default=1, show_default=True, help="Hops."
)
confidence_option = click.option(
    "--min-confidence",
    type=click.FloatRange(0.0, 1.0),
    default=0.0,
    show_default=True,
    help="Leave out edges below this confidence.",
)
repo_option = click.option("--repo", help="Only this repository.")
limit_option = click.option(
    "--limit",
    type=click.IntRange(1, 5000),
    default=200,
    show_default=True,
    help="At most this many nodes (the output says when more were left out).",
)


def _types(values: tuple[str, ...]) -> list[str] | None:
    found = [t.strip() for value in values for t in value.split(",") if t.strip()]
    return found or None


def _print_edges(result: GraphResult, title: str) -> None:
    """A title naming the symbol, then one line per edge, always read left to right:
    `source —type→ target` (the symbol itself shown as "this"), with the confidence,
    how it was resolved and the evidence line."""
    root = result.root
    # An overload walked with the root is "this" too, marked with its id's line: `this@59`.
    names = {root: "this"} | {o: "this" + o[o.rfind("@") :] for o in result.overloads if "@" in o}
    count = len(result.overloads)
    # Overloads share a file; a class reopened elsewhere (Ruby) is defined again.
    same_file = all(o.split("#")[0] == root.split("#")[0] for o in result.overloads)
    kind = "overload" if same_file else "definition"
    also = f" and its {count} other {kind}{'s' * (count > 1)}" if count else ""
    if any(o.startswith(RPC_PREFIX) for o in result.overloads):
        also = " (the rpc it declares, with its servers)"
    console.print(f"[bold]{escape(title)} {escape(root)}{also}[/bold]", highlight=False)
    if not result.edges:
        console.print("  (none)")
    for limit in result.limits:
        console.print(f"  [yellow]note: {escape(limit)}[/yellow]", highlight=False)
    for edge in result.edges:
        source = names.get(edge.source, edge.source)
        target = names.get(edge.target, edge.target)
        where = f"{edge.evidence_path}:{edge.evidence_line}" if edge.evidence_path else "-"
        if edge.target_line is not None:
            where += f"  ↔ {edge.target_path}:{edge.target_line}"
        mark = "" if edge.resolved else "  [yellow]unresolved[/yellow]"
        console.print(
            f"  {escape(source)} —{edge.type}→ {escape(target)}  "
            f"[dim]{edge.confidence:.2f} {edge.via} at {escape(where)}[/dim]{mark}",
            highlight=False,
        )
    if result.truncated:
        console.print("  … truncated (raise --limit)")


@main.command()
@click.argument("name")
@data_dir_option
@click.option("--kind", help="Only this kind (class, function, method, …).")
@repo_option
@click.option("-n", "--limit", type=click.IntRange(1, 200), default=20, show_default=True)
@json_option
@reports_errors
def symbol(
    name: str,
    data_dir: Path | None,
    kind: str | None,
    repo: str | None,
    limit: int,
    as_json: bool,
) -> None:
    """Find symbols by name: exact readings first, then fuzzy.

    NAME may be a node id, `Class.method`, `module.func`, `path:name`, `path:line` or a
    bare name.

    \b
    Examples:
      codecompass symbol Console.print
      codecompass symbol render --kind method --json
    """
    with Engine.open(data_dir) as engine:
        matches = engine.find_symbol(name, kind=kind, repo=repo, limit=limit)
    if as_json:
        emit_json({"query": name, "matches": [m.as_dict() for m in matches]})
        return
    if not matches:
        console.print(f"No symbol matches {escape(repr(name))}.")
        return
    rows = [
        [
            f"{m.score:.2f}{'' if m.exact else '~'}",
            m.kind,
            m.qualified_name,
            f"{m.repo}/{m.path}:{m.start_line}-{m.end_line}",
            m.signature
            if len(m.signature) <= SIGNATURE_CHARS
            else f"{m.signature[:SIGNATURE_CHARS]}…",
        ]
        for m in matches
    ]
    headers = ["score", "kind", "symbol", "where", "signature"]
    _print_table(headers, rows)


@main.command()
@click.argument("name")
@data_dir_option
@depth_option
@confidence_option
@limit_option
@repo_option
@json_option
@reports_errors
def callers(
    name: str,
    data_dir: Path | None,
    depth: int,
    min_confidence: float,
    limit: int,
    repo: str | None,
    as_json: bool,
) -> None:
    """Who calls NAME, with the call lines: callers in the code, HTTP clients of a
    route it handles and producers of an event it listens to, in any repository; for a
    file or a module, the files importing it too; for a type, the code naming it (a
    parameter's, field's or annotation's type) and the types deriving from it.

    NAME may be a node id, `Class.method`, `module.func`, `path:name`, `path:line` or a
    bare name; an ambiguous one lists the ranked candidates and exits 1.

    \b
    Examples:
      codecompass callers Console.print
      codecompass callers "rich/console.py#Console.print" --min-confidence 0.8 --json
      codecompass callers models/staging/stg_orders.sql
    """
    with Engine.open(data_dir) as engine:
        result = engine.callers(
            name, depth=depth, min_confidence=min_confidence, repo=repo, limit=limit
        )
    if as_json:
        emit_json(result.as_dict())
        return
    _print_edges(result, "Callers of")


@main.command()
@click.argument("name")
@data_dir_option
@types_option
@depth_option
@confidence_option
@limit_option
@repo_option
@json_option
@reports_errors
def deps(
    name: str,
    data_dir: Path | None,
    types: tuple[str, ...],
    depth: int,
    min_confidence: float,
    limit: int,
    repo: str | None,
    as_json: bool,
) -> None:
    """What NAME depends on: calls, imports, bases, references, HTTP, package and event
    links.

    NAME may be a node id, `Class.method`, `module.func`, `path:name`, `path:line` or a
    bare name; an ambiguous one lists the ranked candidates and exits 1.

    \b
    Examples:
      codecompass deps OrderService.place
      codecompass deps src/app.py --types imports --depth 2
    """
    with Engine.open(data_dir) as engine:
        result = engine.dependencies(
            name,
            types=_types(types),
            depth=depth,
            min_confidence=min_confidence,
            repo=repo,
            limit=limit,
        )
    if as_json:
        emit_json(result.as_dict())
        return
    _print_edges(result, "Dependencies of")


@main.command()
@click.argument("name")
@data_dir_option
@types_option
@click.option("--depth", type=click.IntRange(min=0, max=10), default=2, show_default=True)
@click.option(
    "--direction", type=click.Choice(["out", "in", "both"]), default="out", show_default=True
)
@limit_option
@repo_option
@json_option
@reports_errors
def graph(
    name: str,
    data_dir: Path | None,
    types: tuple[str, ...],
    depth: int,
    direction: str,
    limit: int,
    repo: str | None,
    as_json: bool,
) -> None:
    """Walk the graph breadth-first from NAME and show the path to every node reached.

    NAME may be a node id, `Class.method`, `module.func`, `path:name`, `path:line` or a
    bare name; an ambiguous one lists the ranked candidates and exits 1.

    \b
    Examples:
      codecompass graph Table --depth 2 --types calls,extends
      codecompass graph api/app.py#get_user --direction in --types http --json
    """
    with Engine.open(data_dir) as engine:
        result = engine.traverse(
            name, depth=depth, types=_types(types), direction=direction, repo=repo, limit=limit
        )
    if as_json:
        emit_json(result.as_dict())
        return
    console.print(
        f"[bold]{escape(result.root)}[/bold]: {len(result.nodes) - 1} nodes, "
        f"{len(result.edges)} edges" + (" (truncated)" if result.truncated else ""),
        highlight=False,
    )
    kinds = {n.id: n.kind for n in result.nodes}
    for path in result.paths:
        console.print(
            "  " + escape(" → ".join(path[1:])) + f"  [dim]{kinds.get(path[-1], '')}[/dim]",
            highlight=False,
            soft_wrap=True,
        )


@main.command()
@data_dir_option
@repo_option
@click.option("--budget", type=click.IntRange(50, 100_000), default=2000, show_default=True)
@json_option
@reports_errors
def overview(data_dir: Path | None, repo: str | None, budget: int, as_json: bool) -> None:
    """A map of a repository: its most important files and symbols with signatures,
    within a token budget (what an agent reads first).

    \b
    Examples:
      codecompass overview
      codecompass overview --repo api --budget 4000 --json
    """
    with Engine.open(data_dir) as engine:
        result = engine.repo_overview(repo=repo, budget_tokens=budget)
    if as_json:
        emit_json(result.as_dict())
        return
    click.echo(result.text, nl=False)


def _workspace(data_dir: Path | None) -> Engine:
    """The workspace folder: --data-dir, $CODECOMPASS_DATA_DIR, the nearest existing
    `.codecompass/` from here up, or a new `.codecompass/` here."""
    from codecompass.engine import find_data_dir
    from codecompass.settings import ENV_PREFIX, load_settings

    if data_dir is None and not os.environ.get(f"{ENV_PREFIX}DATA_DIR"):
        data_dir = find_data_dir(Path.cwd().resolve()) or Path.cwd() / ".codecompass"
    return Engine(load_settings(data_dir))


@main.group()
def repo() -> None:
    """The repositories of a workspace: add, list, remove.

    \b
    Examples:
      codecompass repo add ../api --name api --data-dir ~/work/.codecompass
      codecompass repo list --data-dir ~/work/.codecompass
      codecompass repo remove api --data-dir ~/work/.codecompass
    """


@repo.command(name="add")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--name", help="Repository name (default: the folder name).")
@data_dir_option
@json_option
@reports_errors
def repo_add(path: Path, name: str | None, data_dir: Path | None, as_json: bool) -> None:
    """Index the repository at PATH into the workspace (or update it).

    \b
    Examples:
      codecompass repo add ../api --data-dir ~/work/.codecompass
      codecompass repo add ../web --name frontend
    """
    with _workspace(data_dir) as engine, _progress(as_json, name or path.name) as on_progress:
        stats = engine.add_repo(path, name=name, on_progress=on_progress)
    if as_json:
        emit_json(stats.as_dict())
    else:
        _print_summary(stats, engine.settings.data_dir)


@repo.command(name="list")
@data_dir_option
@json_option
@reports_errors
def repo_list(data_dir: Path | None, as_json: bool) -> None:
    """The repositories of the workspace, with their counts.

    \b
    Examples:
      codecompass repo list
      codecompass repo list --json
    """
    with Engine.open(data_dir) as engine:
        repos = engine.list_repos()
    if as_json:
        emit_json({"repos": repos})
        return
    rows = [
        [
            r["id"],
            r["root"],
            str(r["files"]),
            str(r["symbols"]),
            str(r["chunks"]),
            str(r["edges"]),
            str(r["last_indexed_at"] or "-"),
        ]
        for r in repos
    ]
    headers = ["repo", "root", "files", "symbols", "chunks", "edges", "indexed"]
    if rows:
        _print_table(headers, rows)
    else:
        console.print("No repository is indexed.")


@repo.command(name="remove")
@click.argument("name")
@data_dir_option
@json_option
@reports_errors
def repo_remove(name: str, data_dir: Path | None, as_json: bool) -> None:
    """Delete one repository's files, symbols, chunks, vectors and edges (nothing else).

    \b
    Examples:
      codecompass repo remove frontend
    """
    with Engine.open(data_dir) as engine:
        removed = engine.remove_repo(name)
    if as_json:
        emit_json(removed)
        return
    console.print(
        f"Removed {removed['repo']}: {removed['files']} files, {removed['symbols']} symbols, "
        f"{removed['chunks']} chunks, {removed['vectors']} vectors, {removed['edges']} edges; "
        f"{removed['relinked_files']} files of other repositories re-linked."
    )


# -- principals: who may read what over HTTP ---------------------------------------------
@main.group()
def hooks() -> None:
    """Git hooks that re-index in the background after a commit, merge, checkout or
    rewrite. A hook that was there before keeps running (first); uninstall restores it.

    \b
    Examples:
      codecompass hooks install
      codecompass hooks install ~/src/api --data-dir ~/indexes/api
      codecompass hooks uninstall
    """


@hooks.command(name="install")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@data_dir_option
@json_option
@reports_errors
def hooks_install(path: Path | None, data_dir: Path | None, as_json: bool) -> None:
    """Install post-commit, post-merge, post-checkout and post-rewrite hooks in the git
    repository PATH (default: the one you are in), indexing into its index.

    \b
    Examples:
      codecompass hooks install
      codecompass hooks install ~/src/api --data-dir ~/indexes/api
    """
    from codecompass.lifecycle.hooks import install
    from codecompass.mcp_config import server_command

    engine, root = Engine.for_repo(path, data_dir=data_dir)
    report = install(root, engine.settings.data_dir, server_command())
    _print_hooks(report, as_json)


@hooks.command(name="uninstall")
@click.argument("path", required=False, type=click.Path(path_type=Path))
@json_option
@reports_errors
def hooks_uninstall(path: Path | None, as_json: bool) -> None:
    """Remove Code Compass's hooks from the repository PATH and put back the hooks they
    had set aside.

    \b
    Examples:
      codecompass hooks uninstall
      codecompass hooks uninstall ~/src/api
    """
    from codecompass.engine import repo_root_of
    from codecompass.lifecycle.hooks import uninstall

    root = repo_root_of((path or Path.cwd()).resolve())
    _print_hooks(uninstall(root), as_json)


def _print_hooks(report: Any, as_json: bool) -> None:
    import dataclasses

    if as_json:
        emit_json(dataclasses.asdict(report))
        return
    for label, names in (
        ("installed", report.installed),
        ("kept (now run first)", report.kept),
        ("removed", report.removed),
        ("restored", report.restored),
    ):
        if names:
            console.print(f"{label}: {', '.join(names)}", highlight=False)
    console.print(f"in {escape(report.hooks_dir)}", highlight=False)


@main.group()
def principal() -> None:
    """Tokens for `codecompass serve --http`, each limited to repos and path prefixes.

    \b
    Examples:
      codecompass principal add ci-bot --scope api --scope web:src/
      codecompass principal list
      codecompass principal remove ci-bot
    """


def _principals_file(data_dir: Path | None) -> Path:
    from codecompass.security.access import principals_path

    return principals_path(load_settings(data_dir))


@principal.command(name="add")
@click.argument("name")
@click.option(
    "--scope",
    "scopes",
    multiple=True,
    required=True,
    help="REPO or REPO:PATH_PREFIX the principal may read (repeatable).",
)
@data_dir_option
@json_option
@reports_errors
def principal_add(name: str, scopes: tuple[str, ...], data_dir: Path | None, as_json: bool) -> None:
    """Add a principal (or give it a new token) and print its token, once.

    \b
    Examples:
      codecompass principal add ci --scope api
      codecompass principal add docs-bot --scope api:docs/ --scope web
    """
    from codecompass.security.access import add_principal

    path = _principals_file(data_dir)
    token = add_principal(path, name, list(scopes))
    if as_json:
        emit_json({"name": name, "scopes": list(scopes), "token": token, "file": str(path)})
        return
    console.print(f"Principal [bold]{name}[/bold] may read: {', '.join(scopes)}", highlight=False)
    console.print("Its token (shown only now; the file keeps its SHA-256):", highlight=False)
    click.echo(token)


@principal.command(name="list")
@data_dir_option
@json_option
@reports_errors
def principal_list(data_dir: Path | None, as_json: bool) -> None:
    """The principals and their scopes (never their tokens).

    \b
    Examples:
      codecompass principal list
    """
    from codecompass.security.access import format_scope, load_principals

    path = _principals_file(data_dir)
    found = [
        {"name": p.name, "scopes": [format_scope(s) for s in p.scopes]}
        for p in load_principals(path)
    ]
    if as_json:
        emit_json({"file": str(path), "principals": found})
        return
    if not found:
        console.print(f"No principals in {path}; add one with `codecompass principal add`.")
    for p in found:
        console.print(f"[bold]{p['name']}[/bold]  {', '.join(p['scopes'])}", highlight=False)


@principal.command(name="remove")
@click.argument("name")
@data_dir_option
@reports_errors
def principal_remove(name: str, data_dir: Path | None) -> None:
    """Remove a principal: its token stops working at once (no restart needed).

    \b
    Examples:
      codecompass principal remove ci
    """
    from codecompass.security.access import remove_principal

    remove_principal(_principals_file(data_dir), name)
    console.print(f"Removed principal {name}.")


# -- moving an index between backends ------------------------------------------------------
@main.command(name="export")
@click.argument("archive", type=click.Path(dir_okay=False, path_type=Path))
@data_dir_option
@json_option
@reports_errors
def export_(archive: Path, data_dir: Path | None, as_json: bool) -> None:
    """Write the whole index (catalog, graph facts, vectors) to one ARCHIVE file.

    \b
    Examples:
      codecompass export /tmp/app.ccx                      # from .codecompass/ here
      codecompass export app.ccx --data-dir ~/work/.codecompass
    """
    with Engine.open(data_dir) as engine:
        manifest = engine.export_index(archive)
    if as_json:
        emit_json(manifest)
        return
    counts = ", ".join(f"{v} {k}" for k, v in manifest["counts"].items())
    console.print(f"Exported {counts} to {archive} ({manifest['model']}).", highlight=False)


@main.command(name="import")
@click.argument("archive", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@data_dir_option
@click.option(
    "--root",
    "roots",
    multiple=True,
    metavar="REPO=PATH",
    help="Where a repository's folder is on this machine (repeatable).",
)
@json_option
@reports_errors
def import_(archive: Path, data_dir: Path | None, roots: tuple[str, ...], as_json: bool) -> None:
    """Load an ARCHIVE written by `codecompass export` into this index's backend (the
    embedded folder or the server's workspace): nothing is embedded again.

    \b
    Examples:
      codecompass import app.ccx --data-dir /srv/cc      # [storage] backend = "server" there
      codecompass import app.ccx --root app=/home/me/src/app
    """
    pairs: dict[str, str] = {}
    for spec in roots:
        name, sep, folder = spec.partition("=")
        if not sep or not name or not folder:
            raise click.UsageError(f"--root takes REPO=PATH, not {spec!r}.")
        pairs[name] = str(Path(folder).expanduser().resolve())
    engine = Engine(load_settings(data_dir))
    with engine:
        result = engine.import_index(archive, roots=pairs)
    if as_json:
        emit_json(result)
        return
    counts = ", ".join(f"{v} {k}" for k, v in result["counts"].items())
    console.print(
        f"Imported {counts} into {engine.settings.data_dir} "
        f"({engine.settings.storage.backend} backend); "
        f"graph: {result['graph']['edges_written']} edges.",
        highlight=False,
    )


# -- garbage collection and backups --------------------------------------------------------
def _bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(size) < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def _by_reason(counts: dict[str, int]) -> str:
    return ", ".join(f"{reason} {n}" for reason, n in sorted(counts.items()) if n) or "none"


@main.command(name="gc")
@data_dir_option
@click.option(
    "--dry-run", is_flag=True, help="Count what a collection would remove; change nothing."
)
@click.option(
    "--stats",
    "show_stats",
    is_flag=True,
    help="Tombstones by reason and age, what is due, orphans, sizes, backups; change nothing.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Collect every tombstone whatever its age, and give free space back (VACUUM).",
)
@json_option
@reports_errors
def gc_(data_dir: Path | None, dry_run: bool, show_stats: bool, force: bool, as_json: bool) -> None:
    """Remove tombstones (chunks that left their files) past their retention, rows nothing
    refers to any more, and old audit records. Retention is per reason ([gc] settings):
    7 days for removed or renamed files, 14 for modified chunks, 30 for manual removals.
    What a collection removes is first written to backups/pre-gc-<time>.jsonl.gz in the
    data folder; `codecompass restore` puts it back.

    \b
    Examples:
      codecompass gc --stats
      codecompass gc --dry-run
      codecompass gc
      codecompass gc --force --json --data-dir ~/indexes/api
    """
    if show_stats and (dry_run or force):
        raise click.UsageError("--stats only reports; use it without --dry-run and --force.")
    with Engine.open(data_dir) as engine:
        result = engine.gc_status() if show_stats else engine.gc(dry_run=dry_run, force=force)
    if as_json:
        emit_json(result)
    elif show_stats:
        _print_gc_status(result)
    else:
        _print_gc(result)


def _print_gc(stats: dict[str, Any]) -> None:
    verb = "Would remove" if stats["dry_run"] else "Removed"
    orphans = stats["orphans"]
    rows = sum(v for k, v in orphans.items() if k != "cache_waiting")
    console.print(
        f"{verb} {stats['tombstones_removed']} tombstones ({_by_reason(stats['removed'])}), "
        f"{rows} orphan rows (edges {orphans['edges']}, dependencies {orphans['deps']}, "
        f"HTTP facts {orphans['http']}, facts {orphans['facts']}, nodes {orphans['nodes']}, "
        f"unused embeddings {orphans['cache']}) and {stats['audit_removed']} audit records "
        f"in {stats['seconds']:.2f}s.",
        highlight=False,
    )
    if stats["backup"]:
        console.print(
            escape(f"Backup: {stats['backup']} (`codecompass restore` puts it back)."),
            highlight=False,
        )
    left = sum(stats["remaining"].values())
    oldest = f", oldest {stats['oldest_remaining']}" if stats["oldest_remaining"] else ""
    console.print(
        f"Left: {left} tombstones ({_by_reason(stats['remaining'])}{oldest}); "
        f"{orphans['cache_waiting']} unused embeddings wait out their grace period.",
        highlight=False,
    )
    if not stats["dry_run"]:
        before, after = stats["bytes_before"], stats["bytes_after"]
        sizes = ", ".join(
            f"{part} {_bytes(before[part])} → {_bytes(after.get(part, 0))}"
            for part in before
            if part != "catalog_free"
        )
        vacuum = "free pages given back (VACUUM)" if stats["vacuumed"] else "no VACUUM needed"
        console.print(
            f"Space: {sizes}; {_bytes(stats['bytes_reclaimed'])} reclaimed, "
            f"{_bytes(stats['bytes_freed'])} freed in the catalog; {vacuum}.",
            highlight=False,
        )


def _print_gc_status(info: dict[str, Any]) -> None:
    oldest = f", oldest {info['oldest']}" if info["oldest"] else ""
    console.print(
        f"[bold]Tombstones[/bold] {info['total']}{oldest}; {info['due']} past retention now.",
        highlight=False,
    )
    for reason, t in sorted(info["tombstones"].items()):
        console.print(
            f"  {reason}: {t['count']} (oldest {t['oldest']}), {t['due']} due; "
            f"kept {t['retention_days']} days",
            highlight=False,
        )
    o = info["orphans"]
    console.print(
        f"[bold]Orphans[/bold] edges {o['edges']}, dependencies {o['deps']}, HTTP facts "
        f"{o['http']}, facts {o['facts']}, nodes {o['nodes']}, unused embeddings due "
        f"{o['cache']} ({o['cache_waiting']} more in their grace period); audit records due "
        f"{info['audit_due']}",
        highlight=False,
    )
    sizes = ", ".join(f"{k} {_bytes(v)}" for k, v in info["bytes"].items())
    auto = info["auto"]
    console.print(
        f"[bold]Size[/bold] {sizes}\n[bold]Automatic[/bold] "
        f"{'on' if auto['enabled'] else 'off'}, after an index run once {auto['threshold']} "
        f"tombstones are due (now: {'yes' if auto['would_run'] else 'no'})",
        highlight=False,
    )
    backups = info["backups"]
    console.print(
        f"[bold]Pre-GC backups[/bold] {len(backups)}"
        + (escape(f", newest {backups[0]}") if backups else ""),
        highlight=False,
    )
    last = info["last_run"]
    if last:
        console.print(
            f"[bold]Last collection[/bold] {last['now']}: {last['tombstones_removed']} "
            f"tombstones removed",
            highlight=False,
        )


@main.command(name="backup")
@click.argument("dest", required=False, type=click.Path(path_type=Path))
@data_dir_option
@json_option
@reports_errors
def backup_(dest: Path | None, data_dir: Path | None, as_json: bool) -> None:
    """Write a consistent copy of the live index (searches and an indexer may keep
    running) to DEST: a new file, or an existing folder to put index-<time>.sqlite in
    (default: backups/ in the data folder). The vectors are rebuilt from the embedding
    cache inside the copy when it is restored. The server backend refuses and names its
    tools (pg_dump, `codecompass export`).

    \b
    Examples:
      codecompass backup
      codecompass backup ~/safe/api-index.sqlite
      codecompass backup /mnt/backups/ --data-dir ~/indexes/api --json
    """
    with Engine.open(data_dir) as engine:
        info = engine.backup(dest)
    if as_json:
        emit_json(info)
        return
    console.print(
        escape(
            f"Backed up {', '.join(info['repos'])} ({info['chunks']} chunks, "
            f"{info['tombstones']} tombstones, {info['model']}) to {info['backup']} "
            f"({_bytes(info['bytes'])}). Restore with `codecompass restore {info['backup']}`."
        ),
        highlight=False,
    )


@main.command(name="restore")
@click.argument("backup_file", metavar="BACKUP", type=click.Path(path_type=Path))
@data_dir_option
@json_option
@reports_errors
def restore_(backup_file: Path, data_dir: Path | None, as_json: bool) -> None:
    """Restore BACKUP into the index (or into a new data folder). A full backup, from
    `codecompass backup`, replaces the whole index and rebuilds its vectors from the
    embedding cache; a pre-GC backup (backups/pre-gc-*.jsonl.gz, from `codecompass gc`)
    puts back the tombstones and embeddings that collection removed. Refused, with
    nothing changed: a file that is neither, a backup made with another embedding model
    than the one configured, and an indexer writing the index.

    \b
    Examples:
      codecompass restore .codecompass/backups/index-20260101T120000.sqlite
      codecompass restore ~/safe/api-index.sqlite --data-dir /tmp/api-restored --json
      codecompass restore .codecompass/backups/pre-gc-20260101T120000.jsonl.gz
    """
    with _workspace(data_dir) as engine:
        info = engine.restore(backup_file)
        folder = engine.settings.data_dir
    if as_json:
        emit_json(info)
        return
    if info["kind"] == "pre-gc":
        message = (
            f"Restored {info['tombstones']} tombstones ({info['skipped']} already there) and "
            f"{info['vectors']} embeddings from {info['backup']} into {folder}."
        )
    else:
        message = (
            f"Restored {', '.join(info['repos'])} ({info['chunks']} chunks, {info['model']}) "
            f"from {info['backup']} into {folder}; {info['vectors_written']} vectors rebuilt "
            f"({info['vectors_embedded']} embedded again)."
        )
    console.print(escape(message), highlight=False)


main.add_command(memory_commands)
main.add_command(links_command)
