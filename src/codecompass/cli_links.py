"""`codecompass links`: the links between services (HTTP and OpenAPI, rpc, sdk, events)."""

from __future__ import annotations

from pathlib import Path

import click
from rich.markup import escape

from codecompass.cli_common import console, data_dir_option, emit_json, json_option, reports_errors
from codecompass.engine import Engine
from codecompass.graph.models import LINK_VIAS, VIA_ALIASES
from codecompass.schemas import LinkEnd


@click.command()
@data_dir_option
@click.option(
    "--via",
    type=click.Choice([*LINK_VIAS, *VIA_ALIASES]),
    help="Only links of this kind: http (client call → route or OpenAPI operation, "
    "handler → the operation it serves), rpc or grpc (gRPC client → server, server → the rpc it "
    "serves), sdk (import of another repository's package) or event (producer → "
    "consumer of a topic).",
)
@click.option("--repo", help="Only links with an end in this repository.")
@json_option
@reports_errors
def links(data_dir: Path | None, via: str | None, repo: str | None, as_json: bool) -> None:
    """List the links between services: both ends, the route, operation, rpc or topic,
    the confidence, how the link was made, and the evidence file:line on each side.

    \b
    Examples:
      codecompass links
      codecompass links --via event --repo orders --json
      codecompass links --via http
      codecompass links --via rpc --repo checkout
    """
    with Engine.open(data_dir) as engine:
        result = engine.links(via=via, repo=repo)
    if as_json:
        emit_json(result.as_dict())
        return
    if not result.links:
        console.print("No links between services" + (f" of kind {via}." if via else "."))
        return
    for link in result.links:
        console.print(
            f"{link.via:<5} {_end(link.source)}  →  {_end(link.target)}  "
            f"[bold]{escape(link.name)}[/bold]  [dim]{link.confidence:.2f} {link.how}[/dim]",
            highlight=False,
        )
    counts = ", ".join(f"{n} {v}" for v, n in result.counts.items())
    console.print(f"[dim]{len(result.links)} links ({counts})[/dim]", highlight=False)


def _end(end: LinkEnd) -> str:
    where = f"{end.repo}/{end.path}:{end.line}" if end.path else "-"
    return f"{escape(end.id)} [dim]at {escape(where)}[/dim]"
