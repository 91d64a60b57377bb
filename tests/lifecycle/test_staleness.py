"""Answers say when the files they cite changed on disk after indexing (issue 14:
"staleness is visible"), through the API, the CLI's JSON and MCP's search_code."""

from __future__ import annotations

import time
from pathlib import Path

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
