"""The links between services, as `codecompass links` lists them: HTTP calls to the
routes they reach, imports of a package another repository provides (sdk), producers
to the consumers of an event (and rpc, once services are indexed), each with both ends
and the evidence line of each side."""

from __future__ import annotations

from codecompass.errors import InputError
from codecompass.graph.api import GraphReader
from codecompass.graph.models import EDGE_TYPES, LINK_VIAS
from codecompass.models import Edge, EdgeQuery
from codecompass.schemas import LinkEnd, ServiceLink, ServiceLinks


def check_via(via: str | None) -> None:
    if via is not None and via not in LINK_VIAS:
        raise InputError(f"Unknown link kind {via!r}; use one of {', '.join(LINK_VIAS)}.")


def service_links(
    reader: GraphReader, *, via: str | None = None, repo: str | None = None
) -> ServiceLinks:
    """Every link of kind `via` (default: all) with an end in `repo` (default: any),
    that the reader may see whole; by kind, then by the source's file and line."""
    check_via(via)
    vias = [via] if via else list(LINK_VIAS)
    kinds = {LINK_VIAS[v]: v for v in vias if LINK_VIAS[v] in EDGE_TYPES}  # rpc: none yet
    links: list[ServiceLink] = []
    for owner in reader.repos() if kinds else []:
        query = EdgeQuery(types=list(kinds), repo=owner, resolved=True)
        for edge in reader.backend.edges.edges(query):
            if repo not in (None, owner, edge.target_repo) or not _visible(reader, edge):
                continue
            links.append(_link(kinds[edge.type], owner, edge))
    order = list(LINK_VIAS)
    links.sort(
        key=lambda k: (
            order.index(k.via),
            k.source.repo or "",
            k.source.path or "",
            k.source.line or 0,
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
