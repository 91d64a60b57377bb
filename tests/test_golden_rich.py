"""The ten golden queries over the installed `rich` package (eval/golden/rich.jsonl),
written before looking at any result. The bar is the measured figure, not a wish."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import rich

from codecompass.engine import Engine

GOLDEN = Path(__file__).resolve().parents[1] / "eval" / "golden" / "rich.jsonl"
MEASURED_IN_TOP_5 = 9  # 7 with the first RRF ranking, 6 with issue-text-only weights


def matches(hit_path: str, hit_symbol: str | None, expected: dict[str, str]) -> bool:
    symbol = expected["symbol"]
    return (
        hit_path == expected["path"]
        and hit_symbol is not None
        and (hit_symbol == symbol or hit_symbol.startswith(symbol + "."))
    )


@pytest.fixture(scope="module")
def rich_engine(tmp_path_factory: pytest.TempPathFactory) -> Engine:
    root = tmp_path_factory.mktemp("rich")
    source = root / "rich"
    shutil.copytree(
        Path(rich.__file__).parent, source, ignore=shutil.ignore_patterns("__pycache__")
    )
    engine, _ = Engine.for_repo(source, data_dir=root / "data")
    engine.index(source)
    return engine


def test_golden_queries_land_in_top_5(rich_engine: Engine) -> None:
    queries = [json.loads(line) for line in GOLDEN.read_text(encoding="utf-8").splitlines()]
    assert len(queries) == 10
    found: list[str] = []
    for q in queries:
        hits = rich_engine.search(q["query"], k=5)
        if any(matches(h.path, h.symbol, e) for h in hits for e in q["expected"]):
            found.append(q["query"])
    assert len(found) >= MEASURED_IN_TOP_5, found
