"""Symbol arguments as agents write them, through the SDK's in-memory client: a
`module.func` answers, an ambiguous name is an error carrying its ranked candidates and
the call to make next."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import Client

from codecompass.mcp_server import ServerState
from tests.conftest import TinyEmbedder
from tests.graph.helpers import add_fixture, workspace
from tests.mcp.conftest import error_of, run_client, settings_for

P = "shop/shop"


def test_module_func_answers_and_an_ambiguous_name_offers_candidates(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "python", "shop")
    state = ServerState(
        settings_for(tmp_path / "data"), embedder=TinyEmbedder(), transport="memory"
    )

    async def body(client: Client) -> list[Any]:
        return [
            await client.call_tool("get_callers", {"symbol": "util.render"}),
            await client.call_tool("find_symbol", {"name": "shop.util.render"}),
            await client.call_tool("get_dependencies", {"symbol": "notify"}),
            await client.call_tool("traverse_graph", {"start": "util.py:99"}),
        ]

    callers, found, ambiguous, outside = run_client(state, body)
    assert not callers.is_error
    result = callers.structured_content
    assert result["root"] == f"{P}/util.py#render"
    assert [(e["source"], e["evidence_line"]) for e in result["edges"]] == [
        (f"{P}/service.py#OrderService.place", 20)
    ]
    first = found.structured_content["matches"][0]
    assert (first["id"], first["score"], first["exact"]) == (f"{P}/util.py#render", 1.0, True)
    hint = (
        "Call again with one of these ids, or a longer name such as util.Mailer.notify "
        "or shop/util.py:6."
    )
    assert error_of(ambiguous) == {
        "code": "ambiguous_symbol",
        "tool": "get_dependencies",
        "message": (
            "'notify' is ambiguous; 2 symbols match equally well (best first):\n"
            f"  {P}/util.py#Mailer.notify  (method, line 6, score 0.95)\n"
            f"  {P}/util.py#Pager.notify  (method, line 11, score 0.95)\n" + hint
        ),
        "candidates": [
            {
                "id": f"{P}/util.py#Mailer.notify",
                "kind": "method",
                "repo": "shop",
                "path": "shop/util.py",
                "line": 6,
                "score": 0.95,
            },
            {
                "id": f"{P}/util.py#Pager.notify",
                "kind": "method",
                "repo": "shop",
                "path": "shop/util.py",
                "line": 11,
                "score": 0.95,
            },
        ],
        "hint": hint,
    }
    assert error_of(outside) == {
        "code": "out_of_range",
        "tool": "traverse_graph",
        "message": (
            "Line 99 is outside the file (shop/shop/util.py has 12 lines); give a line inside it."
        ),
    }
