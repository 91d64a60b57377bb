"""Graph expansion and the subgraph around the hits leave a hub's callers alone
(`search/expand.py`, `HUB_IN_EDGES`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codecompass.graph.api import GraphReader
from codecompass.models import Edge, LinkUpdate, OwnedEdges
from codecompass.search.expand import HUB_IN_EDGES, expand
from codecompass.storage.memory import open_memory
from tests.graph.helpers import workspace, write


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


def test_wiring_and_property_reads_are_not_followed() -> None:
    """A component template's call (`via: template-call`) and a property read (`via:
    property`) are no evidence of what the code does: followed, rich's properties took
    first places from 3 of its 30 golden questions."""
    backend = open_memory()
    edges = [
        Edge("r/a.py#seed", "r/a.py#Field.root", "calls", 1.0, 1.0, via="property"),
        Edge("r/a.py#seed", "r/a.py#on_click", "calls", 1.0, 1.0, via="template-call"),
        Edge("r/a.py#seed", "r/a.py#helper", "calls", 1.0, 0.9, via="scope"),
    ]
    backend.edges.write_links(LinkUpdate(owned=[OwnedEdges("r", "a.py", ("calls",), edges)]))
    reached = expand(GraphReader(backend), ["r/a.py#seed"]).reached
    assert set(reached) == {"r/a.py#helper"}


def test_a_node_with_as_many_callers_as_the_limit_is_no_hub() -> None:
    reached = expand(_reader(HUB_IN_EDGES), ["r/a.py#hub"], max_nodes=1000).reached
    assert len(reached) == HUB_IN_EDGES + 1
    assert reached["r/b.py#c0"].path == ("r/a.py#hub", "<-calls-", "r/b.py#c0")
    assert reached["r/a.py#helper"].strength == 0.9


def test_the_subgraph_of_a_hub_hit_leaves_its_callers_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    callers = "".join(f"def caller_{n}():\n    return hub()\n\n\n" for n in range(4))
    repo = write(
        tmp_path / "repo",
        {
            "pkg/core.py": "def helper():\n    return 1\n\n\ndef hub():\n    return helper()\n",
            "pkg/users.py": f"from pkg.core import hub\n\n\n{callers}",
        },
    )
    engine = workspace(tmp_path)
    engine.add_repo(repo, name="r")
    options = engine.search_options(k=1, subgraph=True)

    def drawn() -> tuple[set[str], set[tuple[str, str, str]]]:
        result = engine.retrieve("hub", options)
        assert [h.symbol for h in result.hits] == ["hub"]
        assert result.subgraph is not None
        nodes = {n["id"] for n in result.subgraph["nodes"]}
        return nodes, {(e["source"], e["target"], e["type"]) for e in result.subgraph["edges"]}

    hub, helper = "r/pkg/core.py#hub", "r/pkg/core.py#helper"
    nodes, edges = drawn()
    callers = {f"r/pkg/users.py#caller_{n}" for n in range(4)}
    # Its file contains it and the importing file imports it: edges that end at it too.
    assert nodes == {hub, helper, "r/pkg/core.py", "r/pkg/users.py"} | callers
    assert {(c, hub, "calls") for c in callers} | {(hub, helper, "calls")} <= edges
    monkeypatch.setattr("codecompass.search.results.HUB_IN_EDGES", 3)
    nodes, edges = drawn()
    assert nodes == {hub, helper}
    assert edges == {(hub, helper, "calls")}
