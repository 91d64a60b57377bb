"""The `codecompass` command with the real embedding model, through click and a real
subprocess. Errors must print one clear line, exit non-zero and leave the index intact."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from codecompass.cli import _print_table, explain_lines, main
from codecompass.engine import parse_location
from tests.conftest import make_git_repo

SERVICE = '''"""Orders service."""

from decimal import Decimal


class OrderBook:
    """Keeps open orders by id."""

    def add(self, order_id: str, amount: Decimal) -> None:
        self.orders[order_id] = amount

    def cancel(self, order_id: str) -> bool:
        """Remove an order; return whether it existed."""
        return self.orders.pop(order_id, None) is not None


def parse_amount(text: str) -> Decimal:
    """Turn user input such as '12.50' into a Decimal."""
    return Decimal(text.strip())
'''

CONFIG_TS = """/** Load the JSON configuration file from disk. */
export async function loadConfig(path: string): Promise<Config> {
  const raw = await readFile(path, "utf-8");
  return JSON.parse(raw) as Config;
}
"""


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("cli")
    repo = make_git_repo(
        root / "shop",
        {
            "orders/service.py": SERVICE,
            "web/config.ts": CONFIG_TS,
            ".env": "API_KEY=hunter2\n",
            "docs/guide.md": "# Guide\n\n## Cancelling\n\nCall `OrderBook.cancel`.\n",
        },
    )
    data = root / "data"
    result = CliRunner().invoke(main, ["index", str(repo), "--data-dir", str(data), "--json"])
    assert result.exit_code == 0, result.output
    return repo, data


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_index_summary_counts(indexed: tuple[Path, Path]) -> None:
    repo, data = indexed
    code, out = run("index", str(repo), "--data-dir", str(data), "--json")
    stats = json.loads(out)
    assert code == 0
    assert (stats["unchanged"], stats["new"], stats["texts_embedded"]) == (3, 0, 0)
    assert stats["skipped"] == {"secret": 1}


def test_search_json_has_evidence_and_why(indexed: tuple[Path, Path]) -> None:
    _, data = indexed
    code, out = run("search", "cancel an open order", "--data-dir", str(data), "--json", "-k", "4")
    assert code == 0
    results = json.loads(out)["results"]
    # The class (docstring "Keeps open orders", the cancel signature) and the method lead;
    # the guide section naming `OrderBook.cancel` and the module's head ("Orders
    # service", lifted by its file's evidence) follow. `OrderBook.add`, two lines, is
    # weighed down as `short`.
    assert {r["symbol"] for r in results[:2]} == {"OrderBook", "OrderBook.cancel"}
    assert {r["symbol"] for r in results[2:]} == {None, "Guide > Cancelling"}
    top = next(r for r in results if r["symbol"] == "OrderBook.cancel")
    assert (top["path"], top["start_line"], top["end_line"]) == ("orders/service.py", 12, 14)
    assert top["kind"] == "method" and top["language"] == "python"
    assert {"features", "sources", "matched_terms"} <= set(top["why"])
    assert "cancel" in top["why"]["matched_terms"]
    assert "def cancel(self, order_id: str) -> bool:" in top["snippet"]


def test_search_filters(indexed: tuple[Path, Path]) -> None:
    _, data = indexed
    code, out = run(
        "search", "load configuration", "--data-dir", str(data), "--lang", "typescript", "--json"
    )
    results = json.loads(out)["results"]
    assert code == 0 and [r["symbol"] for r in results] == ["loadConfig"]
    code, out = run("search", "order", "--data-dir", str(data), "--kind", "section", "--json")
    assert {r["path"] for r in json.loads(out)["results"]} == {"docs/guide.md"}


def test_human_output_explains(indexed: tuple[Path, Path]) -> None:
    _, data = indexed
    code, out = run("search", "parse_amount", "--data-dir", str(data), "--explain", "-k", "1")
    assert code == 0
    assert "orders/service.py:17-19" in out and "why:" in out and "parse_amount" in out
    _, as_json = run("search", "parse_amount", "--data-dir", str(data), "--json", "-k", "1")
    why = json.loads(as_json)["results"][0]["why"]
    assert why["file_share"] > 0
    assert f"score: chunk {why['chunk_score']:.4f} + file share {why['file_share']:.4f}" in out
    # a first hit raised to the best score says by how much (Ombi: 1.0442 + 1.9027 ≠ 3.0560)
    raised = {"chunk_score": 1.0442, "file_share": 1.9027, "first_as_best_chunk": True}
    assert explain_lines(raised | {"raised_by": 0.1091})[1] == (
        "score: chunk 1.0442 + file share 1.9027 + 0.1091 to the list's best, first as the "
        "best chunk of all"
    )


def test_status(indexed: tuple[Path, Path]) -> None:
    repo, data = indexed
    code, out = run("status", "--data-dir", str(data), "--json")
    info = json.loads(out)
    assert code == 0
    assert info["model"] == "sentence-transformers/all-MiniLM-L6-v2:onnx-int8"
    assert info["dim"] == 384
    (shop,) = info["repos"]
    assert (shop["id"], shop["files"], shop["tombstones"]) == ("shop", 3, 0)
    assert shop["last_run"]["status"] == "ok"
    assert shop["files_to_read_again"] == 0
    assert shop["changed_on_disk"] == {
        "added": 0,
        "changed": 0,
        "removed": 0,
        "files": [],
        "more": 0,
    }


def test_open_ranges_and_refusals(indexed: tuple[Path, Path]) -> None:
    _, data = indexed
    code, out = run("open", "orders/service.py:17-18", "--data-dir", str(data), "--json")
    view = json.loads(out)
    assert code == 0
    assert view["text"] == "\n".join(SERVICE.split("\n")[16:18])
    assert (view["start_line"], view["end_line"], view["total_lines"]) == (17, 18, 19)
    for location, message in [
        (".env", "secrets file"),
        ("../outside.py", "outside the repository"),
        ("/etc/passwd", "relative to the repository root"),
        ("orders/service.py:30-40", "out of bounds"),
        ("nope.py", "not a file"),
    ]:
        code, out = run("open", location, "--data-dir", str(data))
        assert code == 1 and message in out, (location, out)
        assert "hunter2" not in out


def test_open_takes_locations_as_the_graph_commands_print_them(
    indexed: tuple[Path, Path],
) -> None:
    """`callers`, `symbol` and `ask` print `shop/orders/service.py:12-14` and node ids;
    pasted into `open` they were "not a file in the repository"."""
    _, data = indexed
    for location, lines in [
        ("shop/orders/service.py:12-14", (12, 14)),
        ("shop/orders/service.py#OrderBook.cancel", (12, 14)),
        ("shop/orders/service.py#OrderBook.cancel:13", (13, 13)),
    ]:
        code, out = run("open", location, "--data-dir", str(data), "--json")
        assert code == 0, (location, out)
        view = json.loads(out)
        assert (view["repo"], view["path"]) == ("shop", "orders/service.py"), location
        assert (view["start_line"], view["end_line"]) == lines, location
    code, out = run("open", "orders/service.py#OrderBook.nope", "--data-dir", str(data))
    assert code == 1 and out == (
        "Error: orders/service.py has no symbol 'OrderBook.nope'; it defines: OrderBook, "
        "OrderBook.add, OrderBook.cancel, parse_amount. Open the file by its path, or find "
        "the name with find_symbol.\n"
    )


def test_parse_location() -> None:
    assert parse_location("a/b.py:10-20") == ("a/b.py", 10, 20)
    assert parse_location("a/b.py:7") == ("a/b.py", 7, 7)
    assert parse_location("a/b.py") == ("a/b.py", None, None)
    assert parse_location("C:/x.py") == ("C:/x.py", None, None)


def test_bad_input_exits_non_zero_with_one_message(
    indexed: tuple[Path, Path], tmp_path: Path
) -> None:
    _, data = indexed
    code, out = run("search", "   ", "--data-dir", str(data))
    assert code == 1 and "The query is empty" in out
    code, out = run("index", str(tmp_path / "missing"), "--data-dir", str(tmp_path / "d"))
    assert code == 1 and "does not exist" in out
    code, out = run("search", "x", "--data-dir", str(tmp_path / "empty"))
    assert code == 1 and "holds no index yet" in out
    assert not (tmp_path / "empty").exists()


def test_unwritable_data_dir(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        target = Path("/proc/codecompass-data")  # not writable even for root
    else:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        target = locked / "data"
    repo = make_git_repo(tmp_path / "r", {"a.py": "x = 1\n"})
    code, out = run("index", str(repo), "--data-dir", str(target))
    assert code == 1 and "Cannot write to the data folder" in out


def test_model_mismatch_is_refused_and_index_kept(indexed: tuple[Path, Path]) -> None:
    _, data = indexed
    db = data / "index.sqlite"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("UPDATE meta SET value = 'other-model' WHERE key = 'embedder_model'")
    try:
        code, out = run("search", "order", "--data-dir", str(data))
        assert code == 1 and "built with the embedding model other-model" in out
    finally:
        conn.execute(
            "UPDATE meta SET value = 'sentence-transformers/all-MiniLM-L6-v2:onnx-int8' "
            "WHERE key = 'embedder_model'"
        )
        conn.close()
    assert run("search", "order", "--data-dir", str(data))[0] == 0


def test_console_script_in_a_real_process(indexed: tuple[Path, Path]) -> None:
    _, data = indexed
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "codecompass",
            "search",
            "parse amount",
            "--data-dir",
            str(data),
            "--json",
            "-k",
            "1",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout)["results"][0]["symbol"] == "parse_amount"


def test_tables_print_every_cell_whole_and_as_written(capsys: pytest.CaptureFixture[str]) -> None:
    """Piped, the console has 80 columns: rich cut a long path to fit, and read the
    brackets of a typed signature as markup (`list[int]` came out `list`)."""
    where = "pkg/" * 20 + "module.py:10-24"
    signature = "def f(x: list[int], [bold]y[/bold]) -> dict[str, Any]"
    _print_table(["score", "where", "signature"], [["1.00", where, signature]])
    out = capsys.readouterr().out
    [row] = [line for line in out.splitlines() if "1.00" in line]
    assert where in row and signature in row and "…" not in out
