"""Answers say when the files they cite changed on disk after indexing (issue 14:
"staleness is visible"), through the API, the CLI's JSON and MCP's search_code."""

from __future__ import annotations

import time
from pathlib import Path

from click.testing import CliRunner

from codecompass.cli import main
from codecompass.engine import Engine
from codecompass.settings import load_settings
from tests.conftest import TinyEmbedder, make_git_repo


def test_search_names_cited_files_changed_since_indexing(tmp_path: Path) -> None:
    repo = make_git_repo(
        tmp_path / "shop",
        {
            "pay.py": "def charge_card(amount):\n    return amount\n",
            "ship.py": "def ship_parcel(box):\n    return box\n",
        },
    )
    with Engine(load_settings(tmp_path / "d"), embedder=TinyEmbedder()) as engine:
        engine.index(repo)
        assert engine.retrieve("charge card").stale == []
        time.sleep(0.01)
        (repo / "pay.py").write_text("def charge_card(amount):\n    return 2 * amount\n")
        (repo / "ship.py").unlink()
        found = engine.retrieve("charge card ship parcel")
        assert {h.path for h in found.hits} == {"pay.py", "ship.py"}
        assert found.stale == ["shop/pay.py", "shop/ship.py"]
        assert found.as_dict()["stale"] == ["shop/pay.py", "shop/ship.py"]
        engine.index(repo)
        assert engine.retrieve("charge card ship parcel").stale == []


def _shop(tmp_path: Path) -> Path:
    return make_git_repo(
        tmp_path / "shop",
        {
            "pay.py": "def charge_card(amount):\n    return amount\n",
            "checkout.py": "from pay import charge_card\n\n\n"
            "def checkout(cart):\n    return charge_card(cart.total)\n",
        },
    )


def test_every_answer_names_its_generation_and_its_stale_files(tmp_path: Path) -> None:
    repo = _shop(tmp_path)
    with Engine(load_settings(tmp_path / "d"), embedder=TinyEmbedder()) as engine:
        engine.index(repo)
        first = engine.retrieve("charge card").generation
        assert first is not None and engine.status()["generation"] == first
        answer = engine.ask("where is the card charged?")
        callers = engine.callers("charge_card")
        assert [n.path for n in callers.nodes] == ["pay.py", "checkout.py"]
        assert (answer.generation, answer.stale) == (first, [])
        assert answer.coverage == {"dense": 1.0}
        assert (callers.generation, callers.stale) == (first, [])

        time.sleep(0.01)
        (repo / "checkout.py").write_text("def checkout(cart):\n    return 0\n", encoding="utf-8")
        answer = engine.ask("where is the card charged?")
        assert "shop/checkout.py" in {f"{e.repo}/{e.path}" for e in answer.evidences}
        assert answer.stale == ["shop/checkout.py"]
        assert answer.as_dict()["stale"] == ["shop/checkout.py"]
        assert engine.callers("charge_card").stale == ["shop/checkout.py"]
        assert engine.dependencies("checkout").stale == ["shop/checkout.py"]

        engine.index(repo)
        after = engine.retrieve("charge card")
        assert after.generation is not None and after.generation > first
        assert engine.callers("charge_card").stale == []


def test_status_lists_the_stale_files(tmp_path: Path) -> None:
    repo = _shop(tmp_path)
    data = tmp_path / "d"
    with Engine(load_settings(data), embedder=TinyEmbedder()) as engine:
        engine.index(repo)
        time.sleep(0.01)
        (repo / "pay.py").write_text("def charge_card(amount):\n    return 1\n", encoding="utf-8")
        (repo / "checkout.py").unlink()
        (repo / "refund.py").write_text("def refund(x):\n    return x\n", encoding="utf-8")
        changed = engine.status()["repos"][0]["changed_on_disk"]
    shown = CliRunner().invoke(main, ["status", "--data-dir", str(data)])
    assert shown.exit_code == 0, shown.output
    assert "    added    refund.py\n    changed  pay.py\n    removed  checkout.py\n" in shown.output
    assert "run `codecompass index` to bring them in" in shown.output
    assert changed == {
        "added": 1,
        "changed": 1,
        "removed": 1,
        "files": [
            {"path": "refund.py", "change": "added"},
            {"path": "pay.py", "change": "changed"},
            {"path": "checkout.py", "change": "removed"},
        ],
        "more": 0,
    }


def test_status_adds_no_file_an_index_run_skips_once_read_whole(tmp_path: Path) -> None:
    """A FITS image opens with 8 KiB of text header and holds binary after it: discovery's
    sniff of the head lets it through, the index run's read of the whole file skips it.
    astropy's status listed 22 such images as "added, run index" after every run."""
    repo = _shop(tmp_path)
    header = b"SIMPLE  =                    T / conforms to FITS standard".ljust(80) * 110
    (repo / "image.fits").write_bytes(header + bytes(range(256)) * 40)
    data = tmp_path / "d"
    with Engine(load_settings(data), embedder=TinyEmbedder()) as engine:
        stats = engine.index(repo)
        (repo / "later.fits").write_bytes((repo / "image.fits").read_bytes())
        changed = engine.status()["repos"][0]["changed_on_disk"]
    assert stats.skipped.get("binary") == 1
    assert (changed["added"], changed["files"]) == (0, [])
