"""The `codecompass` command: a thin layer over `Engine` (parse → engine → format)."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.syntax import Syntax
from rich.table import Table

from codecompass.engine import Engine
from codecompass.errors import CodeCompassError
from codecompass.indexing.pipeline import IndexStats
from codecompass.indexing.pipeline import Progress as IndexProgress
from codecompass.search.format import DETAILS

F = TypeVar("F", bound=Callable[..., Any])

console = Console()
err_console = Console(stderr=True)

data_dir_option = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Index folder (default: .codecompass/ at the repository root, or $CODECOMPASS_DATA_DIR).",
)
json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for programs.")


def reports_errors(func: F) -> F:
    """Turn Code Compass errors into one clear line and exit code 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except CodeCompassError as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper  # type: ignore[return-value]


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


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
    """Create the data folder (config.toml, .gitignore) for the folder PATH."""
    engine, _ = Engine.for_repo(path, data_dir=data_dir)
    folder = engine.init()
    console.print(f"Data folder ready: {folder}\nSettings: {folder / 'config.toml'}")


@main.command()
@click.argument("path", required=False, type=click.Path(path_type=Path))
@data_dir_option
@click.option("--name", help="Repository name (default: the folder name).")
@click.option("--full", is_flag=True, help="Re-read and re-parse every file (cache still used).")
@json_option
@reports_errors
def index(
    path: Path | None, data_dir: Path | None, name: str | None, full: bool, as_json: bool
) -> None:
    """Index (or update) the folder PATH (default: the git work tree you are in).
    Only changed files are processed.

    \b
    Examples:
      codecompass index
      codecompass index ../api --name api --data-dir ~/work/.codecompass
    """
    engine, root = Engine.for_repo(path, data_dir=data_dir)
    with engine, _progress(quiet=as_json) as on_progress:
        stats = engine.index(root, name=name, full=full, on_progress=on_progress)
    if as_json:
        emit_json(stats.as_dict())
    else:
        _print_summary(stats, engine.settings.data_dir)


@contextmanager
def _progress(quiet: bool) -> Iterator[Callable[[IndexProgress], None] | None]:
    if quiet or not sys.stderr.isatty():
        yield None
        return
    columns = (
        TextColumn("[bold]indexing"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("files · {task.fields[chunks]} chunks · {task.fields[rate]} embeddings/s"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=err_console, transient=True) as bar:
        task = bar.add_task("index", total=None, chunks=0, rate="-")

        def update(p: IndexProgress) -> None:
            rate = f"{p.embedded / p.embed_seconds:.0f}" if p.embed_seconds > 0 else "-"
            bar.update(
                task, total=p.files_total, completed=p.files_done, chunks=p.chunks, rate=rate
            )

        yield update


def _print_summary(stats: IndexStats, data_dir: Path) -> None:
    table = Table(title=f"Indexed {stats.repo} in {stats.wall_seconds:.1f}s", show_header=False)
    table.add_column(style="bold")
    table.add_column()
    table.add_row(
        "files",
        f"{stats.files_seen} seen: {stats.new} new, {stats.changed} changed, "
        f"{stats.unchanged} unchanged, {stats.renamed} renamed, {stats.removed} removed",
    )
    skipped = ", ".join(f"{k} {v}" for k, v in sorted(stats.skipped.items())) or "none"
    table.add_row("skipped", skipped)
    table.add_row("chunks", f"{stats.chunks_added} added, {stats.chunks_removed} tombstoned")
    rate = stats.texts_embedded / stats.seconds["embed"] if stats.seconds["embed"] else 0.0
    table.add_row(
        "embeddings",
        f"{stats.texts_embedded} computed ({rate:.0f}/s), {stats.texts_cached} from cache",
    )
    if stats.parse_errors:
        table.add_row("parse errors", f"{stats.parse_errors} files fell back to line windows")
    if stats.vectors_repaired:
        table.add_row("repaired", f"{stats.vectors_repaired} vectors")
    table.add_row(
        "time", ", ".join(f"{k} {v:.2f}s" for k, v in stats.seconds.items() if v >= 0.005)
    )
    table.add_row("index", str(data_dir))
    console.print(table)


@main.command()
@click.argument("query")
@data_dir_option
@click.option("-k", "k", type=click.IntRange(min=1, max=200), default=None, help="Results.")
@click.option("--lang", "language", help="Only this language (python, typescript, …).")
@click.option("--path", "path_prefix", help="Only paths starting with this prefix.")
@click.option("--kind", help="Only this kind (function, method, class, section, …).")
@click.option("--repo", help="Only this repository.")
@click.option("--detail", type=click.Choice(DETAILS), default=None, help="Snippet size.")
@click.option("--explain", is_flag=True, help="Show why each result came back.")
@json_option
@reports_errors
def search(
    query: str,
    data_dir: Path | None,
    k: int | None,
    language: str | None,
    path_prefix: str | None,
    kind: str | None,
    repo: str | None,
    detail: str | None,
    explain: bool,
    as_json: bool,
) -> None:
    """Search the index with words, identifiers, paths or an error message.

    \b
    Examples:
      codecompass search "parse the config file"
      codecompass search verify_token --kind function -k 5 --json
    """
    with Engine.open(data_dir) as engine:
        hits = engine.search(
            query,
            k=k,
            language=language,
            path_prefix=path_prefix,
            kind=kind,
            repo=repo,
            detail=detail,
        )
    if as_json:
        emit_json({"query": query, "results": [h.as_dict() for h in hits]})
        return
    if not hits:
        console.print("No results.")
        return
    for n, hit in enumerate(hits, start=1):
        where = f"{hit.path}:{hit.start_line}-{hit.end_line}"
        name = f"  [cyan]{hit.kind} {hit.symbol}[/cyan]" if hit.symbol else f"  [cyan]{hit.kind}"
        console.print(f"[bold]{n}. {where}[/bold]{name}  [dim]score {hit.score:.4f}[/dim]")
        if explain:
            console.print(f"   [dim]why: {json.dumps(hit.why)}[/dim]")
        lexer = "text" if hit.language in ("text", "markdown", "rst") else hit.language
        console.print(Syntax(hit.snippet, lexer, line_numbers=False, word_wrap=True))


@main.command()
@data_dir_option
@json_option
@reports_errors
def status(data_dir: Path | None, as_json: bool) -> None:
    """Show what is indexed, the model, the last run and files changed since."""
    with Engine.open(data_dir) as engine:
        info = engine.status()
    if as_json:
        emit_json(info)
        return
    console.print(f"[bold]Index[/bold] {info['data_dir']}  model {info['model']} ({info['dim']}-d)")
    for repo in info["repos"]:
        run = repo["last_run"] or {}
        changed = repo["changed_on_disk"]
        console.print(
            f"[bold]{repo['id']}[/bold] {repo['root']}\n"
            f"  {repo['files']} files, {repo['symbols']} symbols, {repo['chunks']} chunks, "
            f"{repo['tombstones']} tombstones, {repo['parse_errors']} parse errors\n"
            f"  last run {run.get('finished_at')} ({run.get('status')}), "
            f"commit {repo['last_commit'] or '-'}\n"
            f"  changed on disk since: {changed.get('added', 0)} added, "
            f"{changed.get('changed', 0)} changed, {changed.get('removed', 0)} removed"
        )


@main.command(name="open")
@click.argument("location")
@data_dir_option
@click.option("--repo", help="Repository name when several are indexed.")
@json_option
@reports_errors
def open_(location: str, data_dir: Path | None, repo: str | None, as_json: bool) -> None:
    """Print a file, or a line range: PATH, PATH:START or PATH:START-END."""
    path, start, end = parse_location(location)
    with Engine.open(data_dir) as engine:
        view = engine.open_file(path, start, end, repo=repo)
    if as_json:
        emit_json(view.as_dict())
        return
    console.print(
        f"[bold]{view.path}:{view.start_line}-{view.end_line}[/bold] of {view.total_lines}"
    )
    click.echo(view.text)


def parse_location(location: str) -> tuple[str, int | None, int | None]:
    """`a/b.py:10-20` → ("a/b.py", 10, 20); `a/b.py:10` → one line; `a/b.py` → whole."""
    path, sep, tail = location.rpartition(":")
    if not sep or not tail or not tail.replace("-", "").isdigit():
        return location, None, None
    first, dash, last = tail.partition("-")
    start = int(first)
    end = int(last) if dash and last else (None if dash else start)
    return path, start, end
