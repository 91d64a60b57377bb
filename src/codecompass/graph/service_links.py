"""The links between services, as `codecompass links` lists them: HTTP calls to the
routes and OpenAPI operations they reach and handlers serving an operation (http), rpc
clients to the servers implementing an rpc and servers to the rpc (rpc), imports of a
package another repository provides (sdk), producers to the consumers of an event
(event), each with both ends and the evidence line of each side."""

from __future__ import annotations

from codecompass.errors import InputError
from codecompass.graph.api import GraphReader
from codecompass.graph.models import LINK_VIAS, VIA_ALIASES, link_via
from codecompass.models import Edge, EdgeQuery
from codecompass.schemas import LinkEnd, ServiceLink, ServiceLinks


def check_via(via: str | None) -> str | None:
    """`via` as `LINK_VIAS` names it (`grpc` is `rpc`), or InputError."""
    via = VIA_ALIASES.get(via, via) if via is not None else None
    if via is not None and via not in LINK_VIAS:
        raise InputError(f"Unknown link kind {via!r}; use one of {', '.join(LINK_VIAS)}.")
    return via


def service_links(
    reader: GraphReader, *, via: str | None = None, repo: str | None = None
) -> ServiceLinks:
    """Every link of kind `via` (default: all) with an end in `repo` (default: any),
    that the reader may see whole; by kind, then by the source's file and line, then
    by the other end and the name."""
    via = check_via(via)
    vias = [via] if via else list(LINK_VIAS)
    types = list(dict.fromkeys(t for v in vias for t in LINK_VIAS[v]))
    links: list[ServiceLink] = []
    for owner in reader.repos():
        query = EdgeQuery(types=types, repo=owner, resolved=True)
        for edge in reader.backend.edges.edges(query):
            kind = link_via(edge.type, edge.target)
            if kind is None or kind not in vias or repo not in (None, owner, edge.target_repo):
                continue
            if not _visible(reader, edge):
                continue
            links.append(_link(kind, owner, edge))
    order = list(LINK_VIAS)
    links.sort(
        key=lambda k: (
            order.index(k.via),
            k.source.repo or "",
            k.source.path or "",
            k.source.line or 0,
            k.target.id,
            k.name,
        )
    )
    counts = {v: sum(1 for k in links if k.via == v) for v in vias}
    return ServiceLinks(links=links, counts=counts)


def _visible(reader: GraphReader, edge: Edge) -> bool:
    access = reader.access
    return access.allows_node(edge.source) and access.allows_node(edge.target)


def _link(via: str, owner: str, edge: Edge) -> ServiceLink:
    return ServiceLink(
        via=via,  # type: ignore[arg-type]  # one of LINK_VIAS
        name=edge.name,
        confidence=edge.confidence,
        how=edge.via,
        source=LinkEnd(
            id=edge.source, repo=owner, path=edge.evidence_path, line=edge.evidence_line
        ),
        target=LinkEnd(
            id=edge.target, repo=edge.target_repo, path=edge.target_path, line=edge.target_line
        ),
    )
