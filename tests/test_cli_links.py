"""`codecompass links`: the links between services of a workspace (HTTP, sdk, events),
filtered by kind and repository, as JSON and for people; and `callers` following them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from codecompass.cli import main
from tests.graph.helpers import add_fixture, workspace


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("cli-links")
    with workspace(tmp) as engine:
        add_fixture(engine, tmp, "crossrepo/api", "api")
        add_fixture(engine, tmp, "crossrepo/web", "web")
        add_fixture(engine, tmp, "services/kafka/shop", "shop")
        add_fixture(engine, tmp, "services/kafka/billing", "billing")
    return tmp / "data"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def test_links_json_lists_every_kind_with_both_ends(data: Path) -> None:
    out = run("links", "--json", "--data-dir", str(data))
    assert out.exit_code == 0, out.output
    result = json.loads(out.output)
    assert set(result) == {"links", "counts"}
    assert result["counts"] == {"http": 4, "rpc": 0, "sdk": 1, "event": 5}
    assert [link["via"] for link in result["links"]] == ["http"] * 4 + ["sdk"] + ["event"] * 5
    assert result["links"][0] == {
        "via": "http",
        "name": "GET /users/{}",
        "confidence": 0.8,
        "how": "template",
        "source": {"id": "web/client.py#load_user", "repo": "web", "path": "client.py", "line": 10},
        "target": {"id": "api/app.py#get_user", "repo": "api", "path": "app.py", "line": 9},
    }
    sdk = result["links"][4]
    assert (sdk["source"], sdk["target"], sdk["how"]) == (
        {"id": "web/client.py", "repo": "web", "path": "client.py", "line": 4},
        {"id": "api/api_sdk/__init__.py", "repo": "api", "path": "pyproject.toml", "line": 2},
        "package",
    )
    assert result["links"][5] == {
        "via": "event",
        "name": "event:kafka/orders",
        "confidence": 0.8,
        "how": "constant",
        "source": {
            "id": "shop/shop/events.py#place_order",
            "repo": "shop",
            "path": "shop/events.py",
            "line": 16,
        },
        "target": {
            "id": "billing/src/consumer.js#consumeOrders",
            "repo": "billing",
            "path": "src/consumer.js",
            "line": 9,
        },
    }


def test_links_filtered_by_kind_and_repository(data: Path) -> None:
    def links(*args: str) -> list[dict[str, object]]:
        out = run("links", "--json", "--data-dir", str(data), *args)
        assert out.exit_code == 0, out.output
        found: list[dict[str, object]] = json.loads(out.output)["links"]
        return found

    events = links("--via", "event")
    assert {link["via"] for link in events} == {"event"} and len(events) == 5
    assert {str(link["name"]) for link in events} == {
        "event:kafka/orders",
        "event:kafka/payments",
        "event:kafka/shipments",
        "event:kafka/audit",
        "event:redis/orders",
    }
    # an end in the repository: the consumer's side counts too
    assert len(links("--via", "event", "--repo", "billing")) == 5
    assert links("--via", "event", "--repo", "web") == []
    assert len(links("--repo", "api")) == 5  # 4 http, 1 sdk
    assert links("--via", "rpc") == []
    unknown = run("links", "--repo", "nosuch", "--data-dir", str(data))
    assert unknown.exit_code == 1 and "Unknown repository 'nosuch'" in unknown.output


def test_a_bad_via_is_refused_naming_the_allowed_values(data: Path) -> None:
    out = run("links", "--via", "kafka", "--data-dir", str(data))
    assert out.exit_code == 2
    assert "'kafka' is not one of 'http', 'rpc', 'sdk', 'event', 'grpc'" in out.output


def test_links_for_people(data: Path) -> None:
    out = run("links", "--via", "event", "--repo", "shop", "--data-dir", str(data))
    assert out.exit_code == 0
    lines = out.output.splitlines()
    assert lines[0].startswith("event shop/shop/events.py#place_order at shop/shop/events.py:16")
    assert "→  billing/src/consumer.js#consumeOrders at billing/src/consumer.js:9" in lines[0]
    assert lines[0].endswith("event:kafka/orders  0.80 constant")
    assert lines[-1] == "5 links (5 event)"
    none = run("links", "--via", "rpc", "--data-dir", str(data))
    assert none.exit_code == 0 and none.output == "No links between services of kind rpc.\n"


def test_callers_and_deps_follow_links_across_repositories(data: Path) -> None:
    out = run("callers", "consumeOrders", "--json", "--data-dir", str(data))
    assert out.exit_code == 0
    edges = json.loads(out.output)["edges"]
    assert [(e["source"], e["type"], e["evidence_line"], e["target_line"]) for e in edges] == [
        ("shop/shop/events.py#place_order", "event", 16, 9)
    ]
    routed = run("callers", "api/app.py#get_user", "--data-dir", str(data))
    assert "web/client.py#load_user —http→ this" in routed.output
    deps = run("deps", "place_order", "--types", "emits,event", "--json", "--data-dir", str(data))
    targets = {(e["type"], e["target"]) for e in json.loads(deps.output)["edges"]}
    assert targets == {
        ("emits", "event:kafka/orders"),
        ("event", "billing/src/consumer.js#consumeOrders"),
    }
