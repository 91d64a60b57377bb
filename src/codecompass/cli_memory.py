"""`codecompass memory …`: what agents remember about a project (docs/memory.md)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from rich.markup import escape

from codecompass.cli_common import (
    FreeTextCommand,
    console,
    data_dir_option,
    emit_json,
    err_console,
    json_option,
    query_argument,
    reports_errors,
)
from codecompass.engine import Engine, find_data_dir, repo_root_of
from codecompass.errors import InputError
from codecompass.memory.render import compact, full
from codecompass.models import MEMORY_TYPES
from codecompass.settings import ENV_PREFIX, load_settings

type_option = click.option(
    "--type",
    "types",
    multiple=True,
    type=click.Choice(MEMORY_TYPES),
    help="Only this type (repeatable).",
)
tag_option = click.option(
    "--tag", "tags", multiple=True, help="Only memories with this tag (repeatable: all)."
)
symbol_option = click.option(
    "--symbol",
    "symbols",
    multiple=True,
    help="Only memories about this symbol or file (repeatable).",
)


def _data_dir(data_dir: Path | None) -> Path | None:
    """--data-dir, $CODECOMPASS_DATA_DIR, or the nearest `.codecompass/`; None if none."""
    if data_dir is not None or os.environ.get(f"{ENV_PREFIX}DATA_DIR"):
        return data_dir or Path(os.environ[f"{ENV_PREFIX}DATA_DIR"])
    return find_data_dir(Path.cwd().resolve())


@contextmanager
def _bank(data_dir: Path | None, *, create: bool = False) -> Iterator[Engine | None]:
    """The workspace's engine; None when there is no workspace and `create` is off.
    Creating puts `.codecompass/` at the root of the repository holding this folder."""
    folder = _data_dir(data_dir)
    if folder is None:
        if not create:
            yield None
            return
        folder = repo_root_of(Path.cwd().resolve()) / ".codecompass"
    with Engine(load_settings(folder)) as engine:
        yield engine


def _no_workspace(as_json: bool, empty: Any) -> None:
    if as_json:
        emit_json(empty)
    else:
        err_console.print("No Code Compass workspace here, so no memories (pass --data-dir).")


@click.group()
def memory() -> None:
    """What agents remember about this project: decisions, patterns, fixed errors,
    specs and context, recalled by meaning within a token budget (docs/memory.md).

    \b
    Examples:
      codecompass memory add "Job queue uses PostgreSQL advisory locks, not Redis" --type decision
      codecompass memory search "how are jobs locked"
      codecompass memory context          # the Markdown an agent hook injects
      codecompass memory prune --dry-run
    """


@memory.command(name="status")
@data_dir_option
@json_option
@reports_errors
def memory_status(data_dir: Path | None, as_json: bool) -> None:
    """Counts by type and source, expired and prunable memories, links whose code left
    the index, and the caps.

    \b
    Examples:
      codecompass memory status
      codecompass memory status --json
    """
    with _bank(data_dir) as engine:
        if engine is None:
            _no_workspace(as_json, {"total": 0})
            return
        status = engine.memory.status()
    if as_json:
        emit_json(status.as_dict())
        return
    kinds = ", ".join(f"{n} {t}" for t, n in status.by_type.items() if n) or "none"
    console.print(
        f"{status.total} memories ({kinds}); {status.expired} expired, {status.prunable} prunable."
    )
    console.print(
        f"Caps: {status.caps['project']} per project, {status.caps['per_type']} per type; "
        f"recall budget {status.budget_tokens} tokens."
    )
    for name, excess in status.over_cap.items():
        console.print(
            f"[yellow]Over the {name} cap by {excess}[/]: the next write evicts the weakest."
        )
    if status.dangling:
        console.print(
            f"[yellow]{len(status.dangling)} links point at code no longer in the index:[/]"
        )
        for d in status.dangling:
            console.print(f"  {d['id']} → {escape(d['target'])}", highlight=False)


@memory.command(name="add")
@click.argument("content")
@click.option(
    "--type", "kind", type=click.Choice(MEMORY_TYPES), default="context", show_default=True
)
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option(
    "--symbol",
    "symbols",
    multiple=True,
    help="A symbol or file this is about: name, qualified name, node id or path (repeatable).",
)
@click.option(
    "--salience", type=float, default=1.0, show_default=True, help="Importance in (0, 1]."
)
@data_dir_option
@json_option
@reports_errors
def memory_add(
    content: str,
    kind: str,
    tags: tuple[str, ...],
    symbols: tuple[str, ...],
    salience: float,
    data_dir: Path | None,
    as_json: bool,
) -> None:
    """Remember CONTENT ("-" reads it from stdin). An exact duplicate returns the stored
    id; a paraphrase of a stored memory is merged into it or skipped; a secret is refused.
    A `backticked` name in the text links the memory to that symbol when it is unique.

    \b
    Examples:
      codecompass memory add "Tokens are checked in `verify_token` only" --type pattern
      echo "Staging deploys need VPN" | codecompass memory add - --type context --tag deploy
    """
    text = sys.stdin.read() if content == "-" else content
    with _bank(data_dir, create=True) as engine:
        assert engine is not None
        result = engine.memory.remember(
            text, type=kind, tags=tags, symbols=symbols, source="cli", salience=salience
        )
    if as_json:
        emit_json(result.as_dict())
        return
    console.print(escape(result.message), highlight=False)
    for link in result.links:
        console.print(f"  about {escape(link)}", highlight=False)


@memory.command(name="list")
@type_option
@tag_option
@symbol_option
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most this many.")
@click.option("--full", "show_full", is_flag=True, help="Every field, not one line each.")
@data_dir_option
@json_option
@reports_errors
def memory_list(
    types: tuple[str, ...],
    tags: tuple[str, ...],
    symbols: tuple[str, ...],
    limit: int | None,
    show_full: bool,
    data_dir: Path | None,
    as_json: bool,
) -> None:
    """Memories, newest first (expired ones too, marked). Listing is not a use.

    \b
    Examples:
      codecompass memory list --type decision
      codecompass memory list --symbol AuthService --full
    """
    with _bank(data_dir) as engine:
        if engine is None:
            _no_workspace(as_json, {"memories": []})
            return
        items = engine.memory.entries(types=types, tags=tags, symbols=symbols, limit=limit)
    if as_json:
        emit_json({"memories": [i.as_dict() for i in items]})
        return
    if not items:
        console.print("No memories yet; add one with `codecompass memory add`.")
    for item in items:
        console.print(escape(full(item) if show_full else compact(item)), highlight=False)


@memory.command(name="search", cls=FreeTextCommand)
@query_argument
@type_option
@tag_option
@symbol_option
@click.option("--since", help="Only memories written or used since this ISO date.")
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@click.option(
    "--budget",
    type=click.IntRange(min=50),
    default=None,
    help="Token budget (default [memory] budget_tokens).",
)
@click.option(
    "--detail",
    type=click.Choice(["compact", "full", "context"]),
    default="compact",
    show_default=True,
)
@click.option("--include-expired", is_flag=True, help="Also expired memories nobody used.")
@data_dir_option
@json_option
@reports_errors
def memory_search(
    query: str,
    types: tuple[str, ...],
    tags: tuple[str, ...],
    symbols: tuple[str, ...],
    since: str | None,
    limit: int,
    budget: int | None,
    detail: str,
    include_expired: bool,
    data_dir: Path | None,
    as_json: bool,
) -> None:
    """Recall the memories about QUERY (meaning and words), best first, within the
    token budget; each one shown counts as a use.

    \b
    Examples:
      codecompass memory search "why advisory locks"
      codecompass memory search "auth" --type decision --detail full
    """
    with _bank(data_dir) as engine:
        if engine is None:
            _no_workspace(as_json, {"hits": []})
            return
        result = engine.memory.recall(
            query,
            types=types,
            tags=tags,
            symbols=symbols,
            since=since,
            limit=limit,
            budget_tokens=budget,
            detail=detail,
            include_expired=include_expired,
        )
    if as_json:
        emit_json(result.as_dict())
        return
    if not result.hits:
        console.print(f"No memory about {escape(repr(query))}.", highlight=False)
        return
    click.echo(result.text)
    if result.omitted:
        err_console.print(f"({result.omitted} more matched; raise --budget or --limit to see them)")


@memory.command(name="context")
@click.option(
    "--budget",
    type=click.IntRange(min=50),
    default=None,
    help="Token budget (default [memory] budget_tokens).",
)
@data_dir_option
@reports_errors
def memory_context(budget: int | None, data_dir: Path | None) -> None:
    """Print the "## Project Memory" Markdown for an agent's context: what a session-
    start hook injects. Prints nothing (and succeeds) where there is no memory.

    \b
    Examples:
      codecompass memory context --budget 1500
    """
    with _bank(data_dir) as engine:
        if engine is None:
            return
        text = engine.memory.context(budget_tokens=budget).text
    if text:
        click.echo(text, nl=False)


@memory.command(name="forget")
@click.argument("ids", nargs=-1, required=True)
@data_dir_option
@json_option
@reports_errors
def memory_forget(ids: tuple[str, ...], data_dir: Path | None, as_json: bool) -> None:
    """Delete these memories (ids from `memory list`); none if one is unknown.

    \b
    Examples:
      codecompass memory forget mem_1a2b3c4d5e6f
    """
    with _bank(data_dir) as engine:
        if engine is None:
            raise InputError(
                "No Code Compass workspace here, so no memory to forget; pass --data-dir."
            )
        gone = engine.memory.forget(ids)
    if as_json:
        emit_json({"forgotten": gone})
    else:
        console.print(f"Forgot {len(gone)} memories: {', '.join(gone)}.")


@memory.command(name="clear")
@click.option("--yes", is_flag=True, help="Do not ask first.")
@data_dir_option
@json_option
@reports_errors
def memory_clear(yes: bool, data_dir: Path | None, as_json: bool) -> None:
    """Delete every memory of the workspace (asks first; export them before if unsure).

    \b
    Examples:
      codecompass memory export backup.jsonl && codecompass memory clear --yes
    """
    with _bank(data_dir) as engine:
        if engine is None:
            _no_workspace(as_json, {"cleared": 0})
            return
        total = engine.memory.status().total
        if not yes:
            if not sys.stdin.isatty():
                raise InputError(
                    f"Refusing to delete {total} memories without --yes (no terminal to ask)."
                )
            click.confirm(f"Delete all {total} memories of {engine.settings.data_dir}?", abort=True)
        cleared = engine.memory.clear()
    if as_json:
        emit_json({"cleared": cleared})
    else:
        console.print(f"Deleted {cleared} memories.")


@memory.command(name="prune")
@click.option("--dry-run", is_flag=True, help="Show what would be deleted; delete nothing.")
@data_dir_option
@json_option
@reports_errors
def memory_prune(dry_run: bool, data_dir: Path | None, as_json: bool) -> None:
    """Delete expired memories nobody used (and, with decay on, those whose salience
    fell below [memory] prune_threshold). A real delete: export first to keep a copy.

    \b
    Examples:
      codecompass memory prune --dry-run
      codecompass memory prune
    """
    with _bank(data_dir) as engine:
        if engine is None:
            _no_workspace(as_json, {"deleted": []})
            return
        result = engine.memory.prune(dry_run=dry_run)
    if as_json:
        emit_json(result.as_dict())
        return
    verb = "Would delete" if dry_run else "Deleted"
    console.print(f"{verb} {len(result.deleted)} memories; {result.remaining} remain.")
    for item in result.deleted:
        console.print(
            f"  {escape(compact(item))}  ({escape(result.reasons[item.id])})", highlight=False
        )


@memory.command(name="export")
@click.argument("dest", default="-")
@data_dir_option
@reports_errors
def memory_export(dest: str, data_dir: Path | None) -> None:
    """Write every memory as JSON Lines to DEST (default: stdout); `memory import`
    restores it exactly.

    \b
    Examples:
      codecompass memory export memories.jsonl
      codecompass memory export | gzip > memories.jsonl.gz
    """
    with _bank(data_dir) as engine:
        lines = engine.memory.export_lines() if engine is not None else []
    text = "".join(line + "\n" for line in lines)
    if dest == "-":
        click.echo(text, nl=False)
    else:
        Path(dest).write_text(text, encoding="utf-8")
        err_console.print(f"Exported {max(0, len(lines) - 1)} memories to {dest}.")


@memory.command(name="import")
@click.argument("source", default="-")
@data_dir_option
@json_option
@reports_errors
def memory_import(source: str, data_dir: Path | None, as_json: bool) -> None:
    """Restore memories from a `memory export` file (or stdin): ids, times and use
    counts as they were. A memory already stored is skipped; a secret is refused.

    \b
    Examples:
      codecompass memory import memories.jsonl
      gunzip -c memories.jsonl.gz | codecompass memory import -
    """
    if source == "-":
        lines = sys.stdin.read().splitlines()
    else:
        path = Path(source)
        if not path.is_file():
            raise InputError(f"{source} is not a file; give a `memory export` file or - for stdin.")
        lines = path.read_text(encoding="utf-8").splitlines()
    with _bank(data_dir, create=True) as engine:
        assert engine is not None
        done = engine.memory.import_lines(lines)
    if as_json:
        emit_json(done)
    else:
        console.print(
            f"Imported {done['imported']} memories; {len(done['skipped'])} already there, "
            f"{len(done['refused'])} refused (secrets)."
        )


@memory.command(name="capture")
@click.argument("transcript", default="-")
@click.option(
    "--hook", is_flag=True, help="stdin is a Claude Code hook payload naming the transcript."
)
@click.option(
    "--rules", "rules_only", is_flag=True, help="Use the rule-based extractor even if [llm] is set."
)
@click.option("--dry-run", is_flag=True, help="Show what would be kept; store nothing.")
@data_dir_option
@json_option
@reports_errors
def memory_capture(
    transcript: str,
    hook: bool,
    rules_only: bool,
    dry_run: bool,
    data_dir: Path | None,
    as_json: bool,
) -> None:
    """Propose memories from a finished session's transcript (JSON Lines: Claude Code,
    OpenCode or {"role", "content"} chat lines; "-" for stdin) and keep them under the
    rules of `memory add`. The configured [llm] model extracts them when set, else a
    rule-based extractor (decision, fix and spec markers), labelled as such.

    \b
    Examples:
      codecompass memory capture session.jsonl --dry-run
      codecompass memory capture --hook      # from a Claude Code SessionEnd hook
    """
    if hook:
        try:
            payload = json.loads(sys.stdin.read() or "{}")
        except ValueError as exc:
            raise InputError(f"The hook payload on stdin is not JSON ({exc}).") from exc
        path = payload.get("transcript_path") if isinstance(payload, dict) else None
        if not path:
            raise InputError("The hook payload on stdin names no transcript_path.")
        hook_file = Path(path).expanduser()
        if not hook_file.is_file():
            raise InputError(f"The hook's transcript_path {path} is not a file.")
        lines = hook_file.read_text(encoding="utf-8").splitlines()
    elif transcript == "-":
        lines = sys.stdin.read().splitlines()
    else:
        file = Path(transcript)
        if not file.is_file():
            raise InputError(f"{transcript} is not a file; give a JSONL transcript or - for stdin.")
        lines = file.read_text(encoding="utf-8").splitlines()
    with _bank(data_dir, create=not dry_run) as engine:
        if engine is None:
            _no_workspace(as_json, {"items": []})
            return
        result = engine.capture_memories(lines, dry_run=dry_run, use_llm=not rules_only)
    if as_json:
        emit_json(result.as_dict())
        return
    label = {
        "rules": "rule-based extractor (no model)",
        "llm": f"model {result.model}",
        "sampling": "client model",
    }
    console.print(
        f"{len(result.items)} proposals from {result.turns} turns by the {label[result.extractor]}"
        + (" (dry run)" if dry_run else "")
        + ".",
        highlight=False,
    )
    if result.provider_error:
        err_console.print(f"[yellow]{escape(result.provider_error)}[/]")
    for item in result.items:
        detail = f" ({item.detail})" if item.detail and item.status != "created" else ""
        console.print(
            f"  {item.status:<10} \\[{item.type}] {escape(item.content)}{escape(detail)}",
            highlight=False,
        )
