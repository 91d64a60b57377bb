"""Graph expansion leaves a hub's callers alone (`search/expand.py`, `HUB_IN_EDGES`)."""

from __future__ import annotations

from codecompass.graph.api import GraphReader
from codecompass.models import Edge, LinkUpdate, OwnedEdges
from codecompass.search.expand import HUB_IN_EDGES, expand
from codecompass.storage.memory import open_memory


def _reader(hub_callers: int) -> GraphReader:
    """`r/a.py#hub` (called from `hub_callers` functions, calling `helper`) and
    `r/a.py#leaf` (called from `caller_of_leaf`)."""
    backend = open_memory()
    edges = [Edge(f"r/b.py#c{n}", "r/a.py#hub", "calls", 1.0, 1.0) for n in range(hub_callers)]
    edges += [
        Edge("r/a.py#hub", "r/a.py#helper", "calls", 1.0, 0.9),
        Edge("r/b.py#caller_of_leaf", "r/a.py#leaf", "calls", 1.0, 0.8),
    ]
    backend.edges.write_links(LinkUpdate(owned=[OwnedEdges("r", "a.py", ("calls",), edges)]))
    return GraphReader(backend)


def test_a_hub_gives_only_what_it_calls() -> None:
    reached = expand(_reader(HUB_IN_EDGES + 1), ["r/a.py#hub", "r/a.py#leaf"]).reached
    assert {node: r.strength for node, r in reached.items()} == {
        "r/a.py#helper": 0.9,
        "r/b.py#caller_of_leaf": 0.8,
    }


def test_a_node_with_as_many_callers_as_the_limit_is_no_hub() -> None:
    reached = expand(_reader(HUB_IN_EDGES), ["r/a.py#hub"], max_nodes=1000).reached
    assert len(reached) == HUB_IN_EDGES + 1
    assert reached["r/b.py#c0"].path == ("r/a.py#hub", "<-calls-", "r/b.py#c0")
    assert reached["r/a.py#helper"].strength == 0.9
