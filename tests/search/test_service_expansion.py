"""Graph expansion crosses a service boundary: a client function found by the query
brings the handler of the route it calls (an `http` link) or the method implementing the
rpc it calls (an `rpc` link) from another repository."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.graph.helpers import add_fixture, workspace


def test_a_client_brings_the_handler_of_its_route_from_the_other_repository(
    tmp_path: Path,
) -> None:
    engine = workspace(tmp_path)
    add_fixture(engine, tmp_path, "services/fastapi/service", "service")
    add_fixture(engine, tmp_path, "services/fastapi/client", "client")
    # One seed: the client function the query names; the handler must come from it.
    options = engine.search_options(k=40, mode="hybrid+graph", graph_seeds=1)
    hits = engine.retrieve("fetch_user", options).hits
    handler = [h for h in hits if h.repo == "service" and h.symbol == "get_user"]
    assert len(handler) == 1
    path = handler[0].why["graph_path"]
    assert path == [
        "client/client.py#fetch_user",
        "-http->",
        "service/app/routers/users.py#get_user",
    ]
    assert handler[0].why["features"]["edge"]["value"] == 0.8  # weight 1.0 × confidence 0.8


def test_a_stub_call_brings_the_method_implementing_its_rpc(tmp_path: Path) -> None:
    engine = workspace(tmp_path)
    add_fixture(engine, tmp_path, "services/grpc/checkout", "checkout")
    add_fixture(engine, tmp_path, "services/grpc/storefront", "storefront")
    options = engine.search_options(k=40, mode="hybrid+graph", graph_seeds=1)
    # The handler is two lines: the `short` weight (-0.2) is more than its whole score
    # with the tiny embedder. What is tested here is the hop, so the weight is off.
    options = replace(options, weights=options.weights.with_(short=0.0))
    hits = engine.retrieve("Track", options).hits
    server = [h for h in hits if h.repo == "checkout" and h.symbol == "CheckoutService.GetOrder"]
    assert len(server) == 1
    assert server[0].why["graph_path"] == [
        "storefront/orders/orders.go#Track",
        "-rpc->",
        "checkout/checkout/server.py#CheckoutService.GetOrder",
    ]
    assert server[0].why["features"]["edge"]["value"] == 0.9  # weight 1.0 × confidence 0.9
