"""The graph commands of `codecompass`: symbol, callers, deps, graph, overview and
repo add|list|remove, with --json and --data-dir."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from codecompass.cli import main
from tests.conftest import make_git_repo
from tests.graph.helpers import FIXTURES, add_fixture, workspace

P = "shop/shop"


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("cli-graph")
    with workspace(tmp) as engine:
        add_fixture(engine, tmp, "python", "shop")
    return tmp / "data"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_symbol_json_and_table(data: Path) -> None:
    out = run("symbol", "OrderService.place", "--data-dir", str(data), "--json")
    assert out.exit_code == 0
    first = json.loads(out.output)["matches"][0]
    assert (first["id"], first["score"], first["exact"], first["start_line"]) == (
        f"{P}/service.py#OrderService.place",
        1.0,
        True,
        15,
    )
    table = run("symbol", "Custmer", "--data-dir", str(data))
    assert "Customer" in table.output and "~" in table.output
    # Every location whole on one line, though the piped console has 80 columns.
    matches = json.loads(run("symbol", "Custmer", "--data-dir", str(data), "--json").output)
    for m in matches["matches"]:
        where = f"{m['repo']}/{m['path']}:{m['start_line']}-{m['end_line']}"
        assert any(where in line for line in table.output.splitlines())
    assert "…" not in table.output
    nothing = run("symbol", "qqqq[zzzz]", "--data-dir", str(data))
    assert "No symbol matches 'qqqq[zzzz]'." in nothing.output


def test_callers_deps_graph(data: Path) -> None:
    out = run("callers", "Entity.save", "--data-dir", str(data), "--json")
    result = json.loads(out.output)
    assert result["root"] == f"{P}/models.py#Entity.save"
    assert sorted((e["source"], e["evidence_line"]) for e in result["edges"]) == [
        (f"{P}/repository.py#Repository.add", 8),
        (f"{P}/service.py#OrderService.place", 17),
    ]
    deps = run("deps", "OrderService._notify", "--data-dir", str(data))
    assert "Mailer.notify" in deps.output and "0.40 name at shop/service.py:27" in deps.output
    strict = run("deps", "place", "--types", "calls", "--min-confidence", "0.8", "--json",
                 "--data-dir", str(data))  # fmt: skip
    assert "?close" not in strict.output and "util.py#render" in strict.output
    walk = run("graph", "Entity", "--direction", "in", "--types", "extends,calls", "--depth",
               "2", "--json", "--data-dir", str(data))  # fmt: skip
    paths = json.loads(walk.output)["paths"]
    assert [f"{P}/models.py#Entity", f"{P}/models.py#Order"] in paths


def test_overview_and_errors(data: Path) -> None:
    out = run("overview", "--budget", "200", "--data-dir", str(data))
    assert out.output.startswith("# shop: 6 files, 20 symbols (18 in code, 2 document sections).")
    assert "shop/models.py" in out.output
    ambiguous = CliRunner().invoke(main, ["callers", "notify", "--data-dir", str(data)])
    assert ambiguous.exit_code == 1
    assert "'notify' is ambiguous; 2 symbols match" in ambiguous.output
    unknown = CliRunner().invoke(main, ["deps", "nope", "--data-dir", str(data)])
    assert unknown.exit_code == 1
    assert "codecompass symbol nope" in unknown.output


def test_symbols_as_people_write_them(data: Path) -> None:
    module_func = run("callers", "util.render", "--data-dir", str(data), "--json")
    assert module_func.exit_code == 0
    result = json.loads(module_func.output)
    assert result["root"] == f"{P}/util.py#render"
    assert [(e["source"], e["evidence_line"]) for e in result["edges"]] == [
        (f"{P}/service.py#OrderService.place", 20)
    ]
    at_line = run("deps", "shop/service.py:18", "--data-dir", str(data), "--json")
    assert json.loads(at_line.output)["root"] == f"{P}/service.py#OrderService.place"
    ambiguous = CliRunner().invoke(main, ["callers", "util.notify", "--data-dir", str(data)])
    assert ambiguous.exit_code == 1
    assert ambiguous.output.splitlines() == [
        "Error: 'util.notify' is ambiguous; 2 symbols match equally well (best first):",
        f"  {P}/util.py#Mailer.notify  (method, line 6, score 0.95)",
        f"  {P}/util.py#Pager.notify  (method, line 11, score 0.95)",
        "Run the command again with one of these ids, or a longer name such as "
        "util.Mailer.notify or shop/util.py:6.",
    ]
    as_json = CliRunner().invoke(main, ["deps", "notify", "--data-dir", str(data), "--json"])
    assert as_json.exit_code == 1
    error = json.loads(as_json.output)["error"]
    assert error["code"] == "ambiguous_symbol"
    assert error["candidates"] == [
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
    ]


def test_repo_add_list_remove(tmp_path: Path) -> None:
    data = tmp_path / "ws"
    repo = tmp_path / "go"
    shutil.copytree(FIXTURES / "go", repo)
    added = run("repo", "add", str(repo), "--name", "gosvc", "--data-dir", str(data), "--json")
    assert json.loads(added.output)["graph"]["changed"] == 4
    listed = json.loads(run("repo", "list", "--data-dir", str(data), "--json").output)
    assert [(r["id"], r["files"], r["symbols"]) for r in listed["repos"]] == [("gosvc", 4, 14)]
    table = run("repo", "list", "--data-dir", str(data)).output
    assert [line for line in table.splitlines() if str(repo) in line and "gosvc" in line]
    removed = json.loads(run("repo", "remove", "gosvc", "--data-dir", str(data), "--json").output)
    assert (removed["files"], removed["symbols"], removed["chunks"], removed["vectors"]) == (
        4,
        14,
        18,
        18,
    )
    missing = CliRunner().invoke(main, ["repo", "remove", "gosvc", "--data-dir", str(data)])
    assert missing.exit_code == 1 and "Nothing is indexed" in missing.output


def test_callers_of_an_overloaded_method_mark_each_overload(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "lookup", "lookup")
    out = run("callers", "Ledger.record", "--data-dir", str(tmp_path / "data"))
    assert out.exit_code == 0
    lines = out.output.splitlines()
    assert lines[0] == (
        "Callers of lookup/ledger/Ledger.java#Ledger.record and its 1 other overload"
    )
    assert sorted(line.split("  ")[1] for line in lines[1:]) == [
        "lookup/ledger/Ledger.java#Audit.check —calls→ this",
        "lookup/ledger/Ledger.java#Ledger.close —calls→ this",
        "lookup/ledger/Ledger.java#Ledger.close —calls→ this@10",
    ]


def test_callers_in_a_language_whose_calls_are_not_read_say_so(tmp_path: Path) -> None:
    sql = "CREATE FUNCTION order_count(uid BIGINT) RETURNS BIGINT AS $$ SELECT 1; $$;\n"
    with workspace(tmp_path) as engine:
        (tmp_path / "shop").mkdir()
        (tmp_path / "shop" / "report.sql").write_text(sql, encoding="utf-8")
        engine.add_repo(tmp_path / "shop", name="shop")
    out = run("callers", "order_count", "--data-dir", str(tmp_path / "data"))
    assert out.exit_code == 0
    assert out.output.splitlines()[1:3] == [
        "  (none)",
        "  note: calls are not read from sql files yet: the calls of and to order_count in "
        "sql code are unknown, not absent; search for its name to find where it is used",
    ]


def test_graph_prints_bracketed_paths_as_written(tmp_path: Path) -> None:
    """A Next.js-style folder (`web/[slug]/`) is no console markup: `[slug]` was lost."""
    code = "def render():\n    return helper()\n\n\ndef helper():\n    return 1\n"
    repo = make_git_repo(tmp_path / "site", {"web/[slug]/page.py": code})
    data = str(tmp_path / "data")
    assert run("index", str(repo), "--data-dir", data, "--json").exit_code == 0
    out = run("graph", "render", "--data-dir", data).output
    assert out.splitlines()[:2] == [
        "site/web/[slug]/page.py#render: 1 nodes, 1 edges",
        "  site/web/[slug]/page.py#helper  function",
    ]


def test_callers_and_deps_take_a_limit(data: Path) -> None:
    """umami's `callers useMessages` listed 199 of 232 callers, said "raise --limit", and
    `--limit` was no option of `callers` or `deps`."""
    every = json.loads(run("callers", "Entity.save", "--data-dir", str(data), "--json").output)
    one = run("callers", "Entity.save", "--data-dir", str(data), "--limit", "2")
    assert one.exit_code == 0
    assert len(every["edges"]) == 2 and not every["truncated"]
    assert "truncated (raise --limit)" in one.output
    shown = [line for line in one.output.splitlines() if "—calls→" in line]
    assert len(shown) == 1
    deps = json.loads(
        run("deps", "OrderService.place", "--data-dir", str(data), "--limit", "2", "--json").output
    )
    assert deps["truncated"] is True and len(deps["nodes"]) == 2
