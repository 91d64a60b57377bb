"""What every `codecompass` command shares: the consoles, the common options, JSON
output and the error reporting (exit code 1 with a line saying what to fix)."""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from codecompass.errors import CodeCompassError

F = TypeVar("F", bound=Callable[..., Any])


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """The reader stopped early (`| head`, `| grep -q`): not a failure."""
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise SystemExit(0)


# Soft wrap: long lines are left to the terminal, never broken or padded by us.
console = _Console(soft_wrap=True)
err_console = _Console(stderr=True, soft_wrap=True)

data_dir_option: Callable[[F], F] = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Index folder (default: .codecompass/ at the repository root, or $CODECOMPASS_DATA_DIR).",
)
json_option: Callable[[F], F] = click.option(
    "--json", "as_json", is_flag=True, help="Print JSON for programs."
)


def _query_or_stdin(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """`-` reads the query from standard input (an issue longer than the 128 KiB an
    argument may hold, or a file: `codecompass search - --symbols < issue.md`)."""
    if value != "-":
        return value
    data = sys.stdin.buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise click.BadParameter(
            f"standard input is not UTF-8 text (byte {exc.start}); convert it first.",
            ctx,
            param,
        ) from exc


query_argument: Callable[[F], F] = click.argument("query", callback=_query_or_stdin)

_TEXT_MARK = "\0"  # never in an argument the shell passes, so it cannot clash
_STARTS_LIKE_TEXT = re.compile(r"-[^=\s]*\s")  # a dash, then whitespace before any `=`


class FreeTextCommand(click.Command):
    """A command whose QUERY is free text: an argument that starts with a dash but has
    whitespace before any `=` (an issue opening with a Markdown list, "- the table…", or
    "--fix breaks …") is text, never an option."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        marked = [_TEXT_MARK + a if _STARTS_LIKE_TEXT.match(a) else a for a in args]
        rest = super().parse_args(ctx, marked)
        ctx.params = {
            k: v.removeprefix(_TEXT_MARK) if isinstance(v, str) else v
            for k, v in ctx.params.items()
        }
        return rest


class ReportedError(click.ClickException):
    """A Code Compass error for people (on stderr) or, with --json, for programs
    (`{"error": {"code", "message"}}` on stdout, with `candidates` when the error offers
    some: an ambiguous symbol's); exit code 1 either way."""

    def __init__(
        self,
        code: str,
        message: str,
        as_json: bool,
        candidates: list[dict[str, Any]] | None = None,
    ) -> None:
        super().__init__(message)
        self.code, self.as_json, self.candidates = code, as_json, candidates

    def show(self, file: Any = None) -> None:
        if self.as_json:
            error: dict[str, Any] = {"code": self.code, "message": self.message}
            if self.candidates:
                error["candidates"] = self.candidates
            emit_json({"error": error})
        else:
            super().show(file)


def reports_errors(func: F) -> F:
    """Turn errors into one clear line (or a JSON error object) and exit code 1. An
    unexpected exception keeps its traceback only with CODECOMPASS_DEBUG=1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        as_json = bool(kwargs.get("as_json"))
        try:
            return func(*args, **kwargs)
        except CodeCompassError as exc:
            offered = [c.as_dict() for c in exc.candidates]
            raise ReportedError(exc.code, exc.for_cli(), as_json, offered) from exc
        except (click.ClickException, click.exceptions.Exit, click.Abort, KeyboardInterrupt):
            raise
        except BrokenPipeError:
            # The reader stopped early (`| head`, `| grep -q`): not an error of ours.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise SystemExit(0) from None
        except Exception as exc:
            if os.environ.get("CODECOMPASS_DEBUG"):
                raise
            from codecompass.storage import damage_of

            damage = damage_of(exc)
            if damage is not None:
                raise ReportedError(damage.code, damage.for_cli(), as_json) from exc
            message = (
                f"Unexpected error: {type(exc).__name__}: {exc}. This is a bug; please "
                "report it with the output of the same command run with CODECOMPASS_DEBUG=1."
            )
            raise ReportedError("internal_error", message, as_json) from exc

    return wrapper  # type: ignore[return-value]


def missing_vectors(indexing: Sequence[str]) -> str:
    """Why chunks lack vectors, and what to do: an index run still embedding them, or
    vectors lost (a crash, a deleted folder) that the next run rebuilds."""
    if indexing:
        return (
            f"the index run of {', '.join(indexing)} is still computing vectors; search again "
            "when it is done"
        )
    return "the rest have no vector. Run `codecompass index` to rebuild them from the cache"


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))
