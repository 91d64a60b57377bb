"""get_callers and get_dependencies follow HTTP and event links across repositories,
through the SDK's in-memory client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp import Client

from codecompass.mcp_server import ServerState
from tests.conftest import TinyEmbedder
from tests.graph.helpers import add_fixture, workspace
from tests.mcp.conftest import run_client, settings_for


def test_callers_and_dependencies_cross_services(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "crossrepo/api", "api")
        add_fixture(engine, tmp_path, "crossrepo/web", "web")
        add_fixture(engine, tmp_path, "services/kafka/shop", "shop")
        add_fixture(engine, tmp_path, "services/kafka/billing", "billing")
    state = ServerState(
        settings_for(tmp_path / "data"), embedder=TinyEmbedder(), transport="memory"
    )

    async def body(client: Client) -> list[Any]:
        return [
            await client.call_tool("get_callers", {"symbol": "consumeOrders"}),
            await client.call_tool("get_callers", {"symbol": "api/app.py#get_user"}),
            await client.call_tool("get_dependencies", {"symbol": "record_payment"}),
        ]

    event, http, deps = (r.structured_content for r in run_client(state, body))
    assert [(e["source"], e["type"], e["name"], e["evidence_path"], e["evidence_line"],
             e["target_path"], e["target_line"]) for e in event["edges"]] == [
        ("shop/shop/events.py#place_order", "event", "event:kafka/orders", "shop/events.py", 16,
         "src/consumer.js", 9)
    ]  # fmt: skip
    assert [(e["source"], e["type"], e["evidence_line"]) for e in http["edges"]] == [
        ("web/client.py#load_user", "http", 10)
    ]
    assert {(e["type"], e["target"]) for e in deps["edges"]} >= {
        ("emits", "event:kafka/payments"),
        ("event", "billing/src/consumer.js#consumePayments"),
    }
    topic = next(n for n in deps["nodes"] if n["id"] == "event:kafka/payments")
    assert (topic["kind"], topic["name"]) == ("topic", "kafka/payments")
