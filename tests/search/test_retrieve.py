"""Hybrid retrieval on a small repo: names, paths and frames find code; `why` explains."""

from __future__ import annotations

import gc
import math
import os
import signal
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from codecompass.engine import Engine
from codecompass.errors import InputError
from codecompass.indexing.languages import is_test_path
from codecompass.models import ChunkFilter
from codecompass.search import candidates
from codecompass.search.candidates import (
    FENCED_NAME,
    FRAME_OTHER_CHUNK,
    GUARD_NAMESAKES,
    OUTER_FRAME,
    RAISERS,
    _idf,
    query_terms,
    short_name,
)
from codecompass.search.features import (
    GENERIC_PHRASE_CHUNKS,
    GUARD_LINES,
    _stores_arguments,
    guard_calls,
    handled_type,
)
from codecompass.search.rank import (
    FEATURES,
    RankWeights,
    explain,
    file_scores,
    hit_ranking,
    lead_first,
    score,
    spread_files,
    symbol_scores,
)
from codecompass.search.retrieve import SearchResult
from tests.conftest import TinyEmbedder, make_git_repo

AUTH = '''"""Authentication helpers."""


def verify_token(token, secret):
    """Check a token against the shared secret."""
    return compare(token, secret)


def compare(a, b):
    return a == b


class Session:
    def refresh(self):
        self.expires = 0
'''
TESTS = """from app.auth import verify_token


def test_verify_token():
    assert verify_token("a", "a")
"""


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    repo = make_git_repo(
        tmp_path / "proj",
        {
            "app/auth.py": AUTH,
            "app/session_store.py": "def load(key):\n    return None\n",
            "tests/test_auth.py": TESTS,
            "README.md": "# Proj\n\nVerify tokens.\n",
        },
    )
    eng, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    eng.index(root)
    return eng


def test_an_identifier_in_prose_finds_its_definition_and_explains(engine: Engine) -> None:
    result = engine.retrieve(
        "why does verify_token reject a valid secret?", engine.search_options(k=5)
    )
    top = result.hits[0]
    assert (top.path, top.symbol) == ("app/auth.py", "verify_token")
    features = top.why["features"]
    assert "name" in features and features["name"]["value"] == 1.0
    chunk_score = top.why["chunk_score"]
    assert sum(f["contribution"] for f in features.values()) == pytest.approx(chunk_score, abs=1e-3)
    # The hit's score adds its share of the file's score, as in the symbol view.
    assert top.score == pytest.approx(chunk_score + top.why["file_share"], abs=1e-6)
    assert top.why["file_share"] > 0
    assert "verify_token" in top.why["matched_terms"]
    assert result.files[0].path == "app/auth.py"


def test_a_traceback_frame_points_at_the_function(engine: Engine) -> None:
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/srv/site-packages/app/auth.py", line 10, in compare\n'
        "TypeError: boom"
    )
    hits = engine.search(trace, k=3)
    assert (hits[0].symbol, hits[0].why["features"]["frame"]["value"]) == ("compare", 1.0)


def frame_values(engine: Engine, trace: str) -> dict[str, float]:
    hits = engine.search(trace, k=5)
    return {
        h.symbol or "": h.why["features"]["frame"]["value"]
        for h in hits
        if "frame" in h.why["features"]
    }


def test_the_frame_nearest_the_failure_weighs_most(engine: Engine) -> None:
    """The fix was in the innermost of the repository's frames in 22 of 33 traceback
    tasks: Python's last frame (an outer library's frame, `/usr/lib/…`, is not the
    repository's), another language's first."""
    python = (
        "Traceback (most recent call last):\n"
        '  File "/srv/site-packages/app/auth.py", line 5, in verify_token\n'
        '  File "/srv/site-packages/app/auth.py", line 10, in compare\n'
        '  File "/usr/lib/python3.12/hmac.py", line 9, in compare_digest\n'
        "TypeError: boom"
    )
    assert frame_values(engine, python) == {"compare": 1.0, "verify_token": 0.7}
    js = (
        "TypeError: boom\n"
        "    at verify_token (/srv/app/auth.py:5:3)\n"
        "    at compare (/srv/app/auth.py:10:3)\n"
    )
    assert frame_values(engine, js) == {"verify_token": 1.0, "compare": 0.7}


def test_a_frame_beyond_its_files_last_line_frames_nothing(engine: Engine) -> None:
    """yup's audit: a bundle's frame (`node_modules/yup/index.js:2349`, read as the 149
    lines of `src/index.ts`) framed the file's last chunk, which came first."""
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/srv/site-packages/app/auth.py", line 400, in bundled\n'
        "TypeError: boom"
    )
    assert frame_values(engine, trace) == {}
    assert frame_values(engine, trace.replace("line 400", "line 15")) == {"Session.refresh": 1.0}


def test_a_frame_of_a_nested_function_and_a_chains_cause(tmp_path: Path) -> None:
    """xarray's audit: a frame in `newplotfunc`, nested in `_plot2d`, credited nothing
    (search keeps a nested function in its outer one). pylint's: the wrapper's last frame
    took the weight of the crash's."""
    plot = (
        "def _plot2d(plotfunc):\n"
        "    def newplotfunc(darray):\n"
        "        primitive = plotfunc(darray)\n"
        "        return primitive\n"
        "    return newplotfunc\n\n\n"
        "def lint_file(path):\n"
        "    return check(path)\n\n\n"
        "def check(path):\n"
        "    raise ValueError(path)\n"
    )
    repo = make_git_repo(tmp_path / "viz", {"viz/plot.py": plot})
    eng, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    eng.index(root)
    nested = (
        "Traceback (most recent call last):\n"
        '  File "/venv/site-packages/viz/plot.py", line 3, in newplotfunc\n'
        "AttributeError: boom"
    )
    assert frame_values(eng, nested) == {"_plot2d": 1.0}
    # The symbol view shows the framed function as itself, right after its holder.
    shown = [s.symbol for s in eng.retrieve(nested, eng.search_options(k=5)).symbols]
    assert shown[:2] == ["_plot2d", "_plot2d.newplotfunc"]
    chained = (
        "Traceback (most recent call last):\n"
        '  File "/venv/site-packages/viz/plot.py", line 13, in check\n'
        "ValueError: x\n\n"
        "The above exception was the direct cause of the following exception:\n\n"
        "Traceback (most recent call last):\n"
        '  File "/venv/site-packages/viz/plot.py", line 9, in lint_file\n'
        "Crash: x"
    )
    assert frame_values(eng, chained) == {"check": 1.0, "lint_file": 0.7}


def test_a_traceback_path_names_the_indexed_file_it_ends_with() -> None:
    paths = candidates.path_index(
        [
            ("flask", "src/flask/app.py"),
            ("flask", "src/flask/sansio/app.py"),
            ("flask", "src/flask/json/__init__.py"),
            ("flask", "examples/tutorial/flaskr/__init__.py"),
            ("sympy", "sympy/core/mod.py"),
            ("flask", "setup.py"),
        ]
    )
    match = candidates._match_files
    # The repository's path is the tail of the absolute one, or a partial path its tail.
    assert match("/home/u/sympy/sympy/core/mod.py", paths) == ["sympy/core/mod.py"]
    assert match("core/mod.py", paths) == ["sympy/core/mod.py"]
    assert match("app.py", paths) == ["src/flask/app.py", "src/flask/sansio/app.py"]
    # An installed package's module is the tail of a path under a folder (src layout).
    site = "/home/u/.venv/lib/python3.12/site-packages"
    assert match(f"{site}/flask/app.py", paths) == ["src/flask/app.py"]
    assert match(f"{site}/flask/sansio/app.py", paths) == ["src/flask/sansio/app.py"]
    assert match("/usr/lib/python3/dist-packages/flask/app.py", paths) == ["src/flask/app.py"]
    assert match(f"{site}/Flask-3.1-py3.12.egg/flask/app.py", paths) == ["src/flask/app.py"]
    # Only a package's module counts: a top-level module or the standard library
    # names no file of the repository that merely shares its last folders.
    assert match(f"{site}/app.py", paths) == []
    assert match("/usr/lib/python3.12/json/__init__.py", paths) == []
    assert match(f"{site}/werkzeug/serving.py", paths) == []


def test_a_link_to_a_file_on_a_code_host_names_the_file(engine: Engine) -> None:
    """Issues link the file or line at fault (`…/blob/<ref>/app/session_store.py`): the link's
    path, after its branch or commit, names the indexed file it ends with, and the
    innermost function, method or class holding the line is marked as an outer frame."""
    query = (
        "Sessions are never found after login, see "
        "https://github.com/acme/proj/blob/4f2a9c1e/app/session_store.py"
    )
    result = engine.retrieve(query, engine.search_options(k=5))
    assert result.query.paths == ["4f2a9c1e/app/session_store.py"]
    assert result.files[0].path == "app/session_store.py"
    load = next(h for h in result.hits if h.path == "app/session_store.py")
    assert load.why["features"]["path"]["value"] == 1.0
    # A link to a line: the function holding it is where the issue points, as a frame's.
    linked = engine.retrieve(
        "Expiry is never reset: https://github.com/acme/proj/blob/main/app/auth.py#L15",
        engine.search_options(k=5),
    )
    assert linked.query.anchors == [("main/app/auth.py", 15)]
    refresh = next(h for h in linked.hits if h.symbol == "Session.refresh")
    assert refresh.why["features"]["frame"]["value"] == 0.7
    assert linked.symbols[0].symbol == "Session.refresh"
    assert not any("frame" in h.why["features"] for h in linked.hits if h is not refresh)


def test_modes_and_caps(engine: Engine) -> None:
    for mode in ("bm25", "dense", "hybrid", "hybrid+graph"):
        assert engine.search("verify token secret", k=3, mode=mode)
    capped = engine.retrieve(
        "verify token secret compare refresh", engine.search_options(k=10, max_per_file=1)
    ).hits
    paths = [h.path for h in capped]
    # One per file while other files have results; then the rest of k, from files shown.
    repeat = next((i for i, p in enumerate(paths) if p in paths[:i]), len(paths))
    assert repeat >= 2 and len(set(paths[:repeat])) == repeat
    assert set(paths[repeat:]) <= set(paths[:repeat])


def test_the_retrievers_pool_does_not_depend_on_k(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A larger k had widened the dense and BM25 pools (3 × k), moving files' totals:
    Black's gold function was 10th at -k 50 and 31st at -k 100. The first results are
    the same whatever the number asked for."""
    asked: list[int] = []
    dense_top, lexical_top = candidates.dense_top, candidates.lexical_top

    def dense(ctx: Any, pool: int) -> Any:
        asked.append(pool)
        return dense_top(ctx, pool)

    def lexical(ctx: Any, pool: int) -> Any:
        asked.append(pool)
        return lexical_top(ctx, pool)

    monkeypatch.setattr(candidates, "dense_top", dense)
    monkeypatch.setattr(candidates, "lexical_top", lexical)
    small = engine.retrieve("verify the token", engine.search_options(k=2))
    large = engine.retrieve("verify the token", engine.search_options(k=200))
    assert asked == [150, 150, 150, 150]
    assert [h.symbol for h in small.hits] == [h.symbol for h in large.hits[:2]]


def test_a_class_and_its_methods_are_not_copies_and_k_wins_over_the_file_cap(
    tmp_path: Path,
) -> None:
    """Scrapy: a method of half its class's lines was dropped as a copy of the class's
    chunk (which shows it as a header and `...`), and the method with the bug in the
    first file could not be reached at `-k 200` past `max_per_file`."""
    queue = (
        "class SlotQueue:\n"
        "    def __init__(self):\n        self.slots = {}\n\n"
        "    def pop(self):\n        return self.pick_slot()\n\n"
        "    def pick_slot(self):\n"
        "        # the least loaded slot; ties rotate between the slots\n"
        "        loads = sorted(self.slots.items(), key=lambda kv: kv[1])\n"
        "        best = loads[0][1]\n"
        "        tied = [slot for slot, load in loads if load == best]\n"
        "        self.turn = (getattr(self, 'turn', -1) + 1) % len(tied)\n"
        "        return tied[self.turn]\n"
        "        # the slot queue rotates\n"
        "        # between tied slots\n\n"
        "    def close(self):\n        self.slots.clear()\n\n"
        "    def peek(self):\n        return None\n"
    )
    files = {"pqueue.py": queue, "other.py": "def unrelated():\n    return 1\n"}
    with _indexed(tmp_path, files) as eng:
        found = eng.retrieve(
            "SlotQueue picks the same slot when slots are tied",
            eng.search_options(k=20, max_per_file=3),
        ).hits
    symbols = [h.symbol for h in found if h.path == "pqueue.py"]
    # All of the file, past the cap of 3, once other.py has had its place.
    assert sorted(symbols) == sorted(
        [
            "SlotQueue",
            "SlotQueue.__init__",
            "SlotQueue.pop",
            "SlotQueue.pick_slot",
            "SlotQueue.close",
            "SlotQueue.peek",
        ]
    )
    assert [h.path for h in found].index("other.py") <= 3


def test_score_is_the_weighted_sum_of_features() -> None:
    weights = RankWeights(cosine=0.5, name=0.25)
    feats = {"cosine": 0.8, "name": 1.0, "bm25": 0.3}
    assert score(feats, weights) == pytest.approx(0.65)
    assert set(explain(feats, weights)) == {"cosine", "name", "bm25"}
    assert set(weights.only("name").as_dict()) == set(FEATURES)
    assert is_test_path("pkg/tests/x.py") and is_test_path("src/a.spec.ts")
    assert is_test_path("t/mojo/app.t") and not is_test_path("lib/Mojo/Template.pm")
    assert not is_test_path("pkg/testing_utils.py")
    # tmux's, PostgreSQL's and the BSDs' regression suites (22% of tmux's top-10 hits)
    assert is_test_path("regress/targets.sh") and is_test_path("src/test/regress/x.sql")


class Reverse:
    def rerank(self, query: str, texts: list[str]) -> list[int]:
        return list(reversed(range(len(texts))))[:1]


def test_a_reranker_reorders_the_head(engine: Engine) -> None:
    plain = engine.search("verify token secret compare refresh", k=10)
    engine.reranker = Reverse()
    reranked = engine.search("verify token secret compare refresh", k=10)
    # The reranker picked the last of the head; everything else keeps its order.
    assert reranked[0].symbol != plain[0].symbol
    assert [h.symbol for h in reranked[1:4]] == [h.symbol for h in plain[:3]]


def test_the_garbage_collector_waits_while_a_search_runs(engine: Engine) -> None:
    seen: list[bool] = []

    class Watch:
        def rerank(self, query: str, texts: Sequence[str]) -> list[int]:
            seen.append(gc.isenabled())
            return []

    engine.reranker = Watch()
    engine.search("verify token", k=3)
    after = gc.isenabled()
    gc.disable()  # a program that paused it itself keeps it paused
    try:
        engine.search("verify token", k=3)
        assert (seen, after, gc.isenabled()) == ([False, False], True, False)
    finally:
        gc.enable()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX only")
def test_a_forked_child_searches_after_its_parent(engine: Engine) -> None:
    """The dense search runs on a worker thread; a child forked after a search has no
    worker, and must not wait for its parent's."""
    wanted = [h.symbol for h in engine.search("verify token", k=3)]
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only when it found what the parent found
        signal.alarm(30)
        os._exit(0 if [h.symbol for h in engine.search("verify token", k=3)] == wanted else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_file_expansion_brings_the_rest_of_the_best_file(engine: Engine) -> None:
    def pool(expand_files: int) -> set[str | None]:
        search = replace(engine.settings.search, candidates=1, expand_files=expand_files)
        engine.settings = replace(engine.settings, search=search)
        result = engine.retrieve(
            "verify_token", engine.search_options(k=1, mode="hybrid", collect=True)
        )
        assert result.candidates is not None
        return {c["symbol"] for c in result.candidates if c["path"] == "app/auth.py"}

    assert pool(5) == {"verify_token", "compare", "Session", "Session.refresh", None}
    assert len(pool(0)) < 5


def test_symbol_view_ranks_each_symbol_once_with_its_file_evidence(engine: Engine) -> None:
    query = "verify_token compare secret refresh"
    result = engine.retrieve(query, engine.search_options(k=10, max_symbols=20))
    symbols = [(s.path, s.symbol) for s in result.symbols]
    assert len(symbols) == len(set(symbols))
    # Every symbol of the best file: not capped per file like the hits are.
    assert {s for p, s in symbols if p == "app/auth.py"} >= {
        "verify_token",
        "compare",
        "Session",
        "Session.refresh",
    }
    weight = engine.settings.search.symbol_file_weight
    # The symbol view takes a file's chunk evidence, not the test evidence the file view
    # adds (tests/test_auth.py vouches for app/auth.py).
    assert result.files[0].why["tested_by"]["path"] == "tests/test_auth.py"
    files = {
        f.path: f.score - f.why.get("tested_by", {}).get("contribution", 0) for f in result.files
    }
    lead: dict[str, float] = {}  # the file share of each file's best symbol
    for sym in result.symbols:
        assert sym.why["file_score"] == pytest.approx(files[sym.path], abs=1e-5)
        assert sym.score == pytest.approx(sym.why["chunk_score"] + sym.why["file_share"], abs=1e-5)
        full = weight * sym.why["file_score"]
        assert min(0, full) - 1e-5 <= sym.why["file_share"] <= max(0, full) + 1e-5
        lead.setdefault(sym.path, sym.why["file_share"])
    # A file's best symbol gets the whole weighted file score.
    assert lead == pytest.approx({p: weight * files[p] for p in lead}, abs=1e-5)
    assert [s.score for s in result.symbols] == sorted(
        (s.score for s in result.symbols), reverse=True
    )
    assert engine.search_symbols(query, k=2) == result.symbols[:2]


def test_a_view_as_hits_is_the_view_by_its_best_chunks(tmp_path: Path) -> None:
    """`view` "symbols" or "files": the view's first k, each as the hit of its best chunk
    (a long function's best window, its own lines in `why`), uncapped a file."""
    steps = "".join(
        f"    total = total + step_{i}(rows)  # fold the rows in turn\n" for i in range(80)
    )
    files = {
        "ledger.py": (
            "def reconcile_ledger(rows):\n    total = 0\n"
            + steps
            + "    return total if total else overdraft_fee(rows)\n\n"
            "def overdraft_fee(rows):\n    return 35 if rows else 0\n\n"
            "def ledger_balance(rows):\n    return sum(rows)\n"
        ),
        "report.py": "def print_report(rows):\n    print(rows)\n",
    }
    query = "reconcile_ledger charges an overdraft_fee on the ledger balance"
    with _indexed(tmp_path, files) as eng:
        plain = eng.retrieve(query, eng.search_options(k=5, max_symbols=5, max_files=5))
        by_symbol = eng.retrieve(query, eng.search_options(k=5, view="symbols", max_per_file=1))
        by_file = eng.retrieve(query, eng.search_options(k=5, view="files"))
        with pytest.raises(InputError, match="Unknown view 'functions'; use one of: hits, "):
            eng.retrieve(query, eng.search_options(view="functions"))
    assert [(h.path, h.symbol, h.score) for h in by_symbol.hits] == [
        (s.path, s.symbol, s.score) for s in plain.symbols
    ]
    # All three of the best file, past `max_per_file`, which caps the plain hits only.
    assert sorted(h.symbol or "" for h in by_symbol.hits if h.path == "ledger.py") == [
        "ledger_balance",
        "overdraft_fee",
        "reconcile_ledger",
    ]
    reconcile = next(h for h in by_symbol.hits if h.symbol == "reconcile_ledger")
    assert reconcile.why["symbol_lines"] == [1, 83]  # its best window is shorter
    assert reconcile.end_line - reconcile.start_line < 82 and "features" in reconcile.why
    assert [(h.path, h.score) for h in by_file.hits] == [(f.path, f.score) for f in plain.files]
    assert by_file.hits[0].why["chunks_matched"] >= 3


def test_the_file_of_the_best_chunk_leads_the_file_view_unless_clearly_passed() -> None:
    # support (0.5 × the next two chunks) puts b ahead of a on totals, but a holds the
    # best chunk of all, the first hit: the file view starts where the hits start...
    scored = [("a", 1.0), ("c", 0.95), ("b", 0.9), ("b", 0.2), ("d", 0.2)]
    assert file_scores(scored, 0.5) == [("a", 1.0), ("b", 1.0), ("c", 0.95), ("d", 0.2)]
    assert lead_first([("x", 3.0), ("lead", 2.8), ("y", 2.0)], "lead") == [
        ("lead", 2.8),
        ("x", 3.0),
        ("y", 2.0),
    ]
    # ...unless another file totals more than LEAD_MARGIN (10%) above it: gin's
    # `context.go`, with many near matches, holds the fix more often than the file of
    # one lucky chunk (file@1 16 → 18 of 26; 15 issue sets 227 → 230 of 403).
    scored = [("a", 1.0), ("b", 0.9), ("b", 0.8), ("b", 0.7), ("c", 0.95), ("d", 0.2)]
    assert file_scores(scored, 0.5) == [("b", 1.65), ("a", 1.0), ("c", 0.95), ("d", 0.2)]
    assert file_scores(scored[1:], 0.5) == [("b", 1.65), ("c", 0.95), ("d", 0.2)]
    assert file_scores([], 0.5) == []


def test_a_file_lifts_the_symbols_that_carry_its_evidence_not_every_sibling() -> None:
    # errors.py wins on support (several small classes match a little less); models.py
    # holds the strong method. With file_weight 1 and no falloff every error class
    # rides on errors.py's total; with falloff 1 a symbol 0.3 below its file's best
    # keeps 70% of it.
    scored = [
        ("errors", "HTTPError", 1.2),
        ("models", "Response.raise_for_status", 1.1),
        ("errors", "RetryError", 0.9),
        ("errors", "InvalidURL", 0.8),
        ("models", "Response", 0.2),
    ]
    totals = dict(file_scores([(k, v) for k, _, v in scored], 0.5))
    assert totals == pytest.approx({"errors": 2.05, "models": 1.2})

    def ranked(falloff: float) -> list[tuple[str, float, float]]:
        parts = symbol_scores(scored, totals, 1.0, 0.0, falloff)
        order = sorted(parts, key=lambda k: -sum(parts[k]))
        return [(k[1], round(parts[k][0], 4), round(parts[k][1], 4)) for k in order]

    assert [name for name, _, _ in ranked(0.0)] == [
        "HTTPError",
        "RetryError",
        "InvalidURL",
        "Response.raise_for_status",
        "Response",
    ]
    assert ranked(1.0) == [
        ("HTTPError", 1.2, 2.05),
        ("RetryError", 0.9, 1.435),  # 2.05 × (1 − 0.3)
        ("Response.raise_for_status", 1.1, 1.2),
        ("InvalidURL", 0.8, 1.23),
        ("Response", 0.2, 0.12),
    ]
    # Far below its file's best, a symbol keeps none of the file's score; a negative
    # file score (tests) is kept whole by every symbol.
    assert symbol_scores(scored, totals, 1.0, 0.0, 2.0)[("models", "Response")] == (0.2, 0.0)
    negative = symbol_scores(scored, {"errors": -1.0, "models": 1.2}, 1.0, 0.0, 2.0)
    assert negative[("errors", "InvalidURL")] == (0.8, -1.0)


def test_symbol_view_lets_the_best_file_lead(tmp_path: Path) -> None:
    """A weak match in the best-supported file outranks a slightly better match in a
    file with no other evidence, once the file score weighs in."""
    repo = make_git_repo(
        tmp_path / "p",
        {
            "billing.py": "def invoice_total(lines):\n    return sum(lines)\n\n\n"
            "def invoice_tax(total):\n    return total * 0.2\n\n\n"
            "def invoice_send(invoice):\n    return invoice\n",
            "misc.py": "def total_tax(total, tax):\n    return total + tax\n",
        },
    )
    eng, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    with eng:
        eng.index(root)
        flat = replace(eng.settings.search, symbol_file_weight=0.0)
        heavy = replace(eng.settings.search, symbol_file_weight=4.0)
        eng.settings = replace(eng.settings, search=flat)
        # Fixed weights: the test is about the view, not the tuned defaults.
        weights = RankWeights().only("cosine", "bm25").with_(cosine=1.0, bm25=1.0)
        query = "invoice total tax"
        plain = eng.retrieve(query, eng.search_options(k=5, weights=weights))
        eng.settings = replace(eng.settings, search=heavy)
        led = eng.retrieve(query, eng.search_options(k=5, weights=weights))
    # misc.total_tax matches better than two billing functions, but billing.py holds
    # the evidence. The hits rank functions as the view does.
    for result in (plain, led):
        assert [h.symbol for h in result.hits] == [s.symbol for s in result.symbols]
    assert [s.symbol for s in plain.symbols] == [
        "invoice_tax",
        "total_tax",
        "invoice_total",
        "invoice_send",
    ]
    assert [s.symbol for s in led.symbols] == [
        "invoice_tax",
        "invoice_total",
        "invoice_send",
        "total_tax",
    ]
    assert [h.score for h in led.hits] == [s.score for s in led.symbols]
    assert [h.score for h in plain.hits] == [h.why["chunk_score"] for h in plain.hits]


def test_spread_files_brings_each_lead_files_best_item_into_the_first_places() -> None:
    files = ["a", "a", "a", "a", "b", "c", "a", "b"]
    # b's best (index 4) and c's (5) take the last two of four places, in their order.
    assert spread_files(files, ["a", "b", "c"], 4) == [0, 1, 4, 5, 2, 3, 6, 7]
    # Already within the places, or with no item at all: nothing moves.
    assert spread_files(files, ["a", "b", "z"], 5) == list(range(8))
    assert spread_files(files, [], 2) == list(range(8))
    # More files to bring than places: the ranking stands.
    assert spread_files(["a", "b", "c"], ["b", "c"], 1) == [0, 1, 2]
    # A lead file's best already in the last place keeps it: the item brought displaces
    # the one before (werkzeug's audit: security.py's `safe_join` went from 10th to 11th).
    files = ["a", "a", "a", "b", "a", "c"]
    assert spread_files(files, ["a", "b", "c"], 4) == [0, 1, 3, 5, 2, 4]


def test_symbol_view_holds_the_best_symbol_of_each_leading_file(tmp_path: Path) -> None:
    """One file's many near matches would fill the first ten places; the best symbol
    of the file view's second and third files is brought into them, marked."""
    crowded = "".join(
        f"def token_check_{i}(token):\n    return check_token(token, {i})\n\n\n" for i in range(12)
    )
    repo = make_git_repo(
        tmp_path / "p",
        {
            "tokens.py": crowded,
            "session.py": "def session_token(store):\n    return store.token\n",
            "cache.py": "def cached_check(key):\n    return key\n",
        },
    )
    eng, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    with eng:
        eng.index(root)
        weights = RankWeights().only("cosine", "bm25").with_(cosine=1.0, bm25=1.0)
        found = eng.retrieve(
            "token check", eng.search_options(k=20, max_symbols=20, weights=weights)
        )
    assert [f.path for f in found.files] == ["tokens.py", "session.py", "cache.py"]
    paths = [s.path for s in found.symbols]
    assert paths[:8] == ["tokens.py"] * 8
    assert [(s.path, s.symbol, s.why.get("spread_for_file")) for s in found.symbols[8:10]] == [
        ("session.py", "session_token", 2),
        ("cache.py", "cached_check", 3),
    ]
    assert paths[10:] == ["tokens.py"] * 4
    # Their own scores are below the symbols they displaced; they are shown tied with
    # the next, so that sorting by score keeps the order (`why.own_score` keeps theirs).
    brought, displaced = found.symbols[9], found.symbols[10]
    assert brought.why["own_score"] < displaced.score == brought.score
    assert found.symbols[8].score == brought.score
    assert "own_score" not in displaced.why
    scores = [s.score for s in found.symbols]
    assert scores == sorted(scores, reverse=True)


def test_the_best_chunk_leads_the_hits_and_the_evidence(tmp_path: Path) -> None:
    """lone.py holds the best chunk; strong.py's three near matches give its functions a
    larger share. The best chunk stays first in the hits and the evidence an answer is
    built from (not re-sorted by score). The file and symbol views let a total more than
    LEAD_MARGIN above the lead's come first: strong.py totals 62% more. Within the
    margin the lead comes first: taxonomy's `cn`, the best chunk of "where is the cn
    class-name helper defined", had come 10th in the symbol view, under members of a
    file that calls it nine times (within 4% of its total)."""
    repo = make_git_repo(
        tmp_path / "p",
        {
            "strong.py": "def refund_order(order):\n    return order\n\n\n"
            "def refund_amount(order):\n    return order\n\n\n"
            "def refund_reason(order):\n    return order\n",
            "lone.py": "def refund_order_amount(order):\n    return order\n",
        },
    )
    eng, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    query = "refund order amount"
    with eng:
        eng.index(root)
        found = eng.retrieve(query, eng.search_options(k=5))
        hits = found.hits
        evidence = eng.find_evidence(query, top_k=5).hits
    assert [f.path for f in found.files] == ["strong.py", "lone.py"]
    assert "own_score" not in found.files[0].why
    order = ["refund_order_amount", "refund_amount", "refund_order", "refund_reason"]
    assert [h.symbol for h in hits] == order
    assert hits[0].why["chunk_score"] == max(h.why["chunk_score"] for h in hits)
    # its own total is below the next hit's; shown scores still fall down the list
    first = hits[0].why
    assert first["chunk_score"] + first["file_share"] < hits[1].score
    assert first["first_as_best_chunk"] and "first_as_best_chunk" not in hits[1].why
    # Ombi: `--explain` gave "score 3.0560" as "chunk 1.0442 + file share 1.9027"
    raised = first["chunk_score"] + first["file_share"] + first["raised_by"]
    assert raised == pytest.approx(hits[0].score, abs=1e-5) and first["raised_by"] > 0
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert [h.symbol for h in evidence] == order
    # In the symbol view the lead passes the sibling within the margin, not the two
    # above it, and is shown at the score of the one it passed.
    symbols = found.symbols
    passed = ["refund_amount", "refund_order", "refund_order_amount", "refund_reason"]
    assert [s.symbol for s in symbols] == passed
    assert symbols[2].why["own_score"] < symbols[3].score == symbols[2].score
    assert not any("first_as_best_chunk" in s.why for s in symbols)


def test_hits_follow_the_symbol_view_after_the_best_chunk() -> None:
    # billing.py holds the best chunk; misc.py has more support, so a larger total.
    scored: list[tuple[str, str | None, float]] = [
        ("billing", "invoice_tax", 2.0),
        ("misc", "total_tax", 1.9),
        ("misc", "tax_rate", 1.5),
        ("billing", None, 1.0),  # module code: no symbol
        ("billing", "invoice_tax", 0.8),  # a second window of invoice_tax
    ]
    totals = {"billing": 2.0, "misc": 3.0}
    values = symbol_scores([(k, s, v) for k, s, v in scored if s], totals, 1.0, 0.0, 0.25)
    assert hit_ranking(scored, values, totals, 1.0, 0.25) == [
        (0, 4.9),  # the best chunk leads, given the best score (misc's total_tax has 4.9)
        (1, 4.9),
        (2, pytest.approx(4.2)),  # 1.5 + 3.0 × (1 − 0.25 × 0.4)
        (4, 4.0),  # every window of a symbol gets the symbol's score
        (3, 2.5),  # 1.0 + 2.0 × (1 − 0.25 × 1.0)
    ]
    # With no file weight the hits keep the chunk scores: each symbol's best (its second
    # window comes next, and the hits drop it as a duplicate).
    flat = symbol_scores([(k, s, v) for k, s, v in scored if s], totals, 0.0, 0.0, 0.25)
    assert hit_ranking(scored, flat, totals, 0.0, 0.25) == [
        (0, 2.0),
        (4, 2.0),
        (1, 1.9),
        (2, 1.5),
        (3, 1.0),
    ]


def test_term_statistics_follow_the_index(tmp_path: Path) -> None:
    """Document frequencies are cached per index state: an edit that adds a term to
    one more chunk is seen by the next query."""
    repo = make_git_repo(tmp_path / "p", {"a.py": "def alpha():\n    return 'gamma'\n"})
    eng, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    with eng:
        eng.index(root)
        assert eng.backend.lexical.doc_freqs(["gamma", "nowhere"]) == ({"gamma": 1}, 1)
        (repo / "b.py").write_text("def beta():\n    return 'gamma'\n", encoding="utf-8")
        eng.index(root)
        assert eng.backend.lexical.doc_freqs(["gamma"]) == ({"gamma": 2}, 2)
        (repo / "a.py").unlink()
        eng.index(root)
        assert eng.backend.lexical.doc_freqs(["gamma"]) == ({"gamma": 1}, 1)


def test_a_term_in_half_the_chunks_is_left_out_of_bm25(tmp_path: Path) -> None:
    """BM25 gives a term in half the chunks or more an IDF of 1e-6, so the lexical search
    does not ask for it (matching it would score nearly every chunk): no score moves.
    Alone, it is still asked for."""
    files = {f"m{i}.py": f"def f{i}():\n    return 'widget'\n" for i in range(3)}
    files["g.py"] = "def g():\n    return 'gamma'\n"
    with _indexed(tmp_path, files) as eng:
        lexical = eng.backend.lexical
        freqs, total = lexical.doc_freqs(["widget", "gamma"])
        assert freqs["widget"] * 2 >= total > freqs["gamma"] * 2
        with_widget = dict(lexical.match(["gamma", "widget"], ChunkFilter()).top(20))
        gamma_only = dict(lexical.match(["gamma"], ChunkFilter()).top(20))
        assert len(with_widget) == freqs["widget"] + 1 and len(gamma_only) == 1
        for cid, found in with_widget.items():
            assert found == pytest.approx(gamma_only.get(cid, 0.0), abs=1e-5)
    idf = {"gamma": _idf(freqs["gamma"] / total), "widget": _idf(freqs["widget"] / total)}
    assert query_terms(idf) == ["gamma"]
    assert query_terms({"widget": idf["widget"]}) == ["widget"]


def _by_symbol(result: SearchResult, feature: str) -> dict[str | None, float]:
    """Each candidate's value of `feature` (0 when unset), by its symbol."""
    assert result.candidates is not None
    return {c["symbol"]: c["features"].get(feature, 0.0) for c in result.candidates}


def _indexed(tmp_path: Path, files: dict[str, str]) -> Engine:
    """An engine over a new git repo of `files`, indexed with the tiny embedder."""
    repo = make_git_repo(tmp_path / "p", files)
    eng, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    eng.index(root)
    return eng


def test_handled_type_reads_the_dispatch_by_name_convention() -> None:
    assert handled_type("PrettyPrinter._print_MatAdd") == "MatAdd"
    assert handled_type("Visitor.visit_Call") == "Call"
    assert handled_type("visit_FunctionDef") == "FunctionDef"
    # Lower-case suffixes are ordinary method names, not types.
    assert handled_type("Expr._eval_is_integer") is None
    assert handled_type("load_config") is None
    assert handled_type("Printer._print") is None
    assert handled_type("X.__init__") is None
    assert handled_type(None) is None


def test_the_handler_of_a_named_type_is_found(tmp_path: Path) -> None:
    printer = (
        "class PrettyPrinter:\n"
        "    def _print_Product(self, expr):\n        return self.frame(expr)\n\n"
        "    def _print_Sum(self, expr):\n        return self.frame(expr)\n"
    )
    concrete = "class Sum:\n    pass\n\n\nclass Product:\n    pass\n"
    with _indexed(tmp_path, {"pretty.py": printer, "concrete.py": concrete}) as eng:
        query = "`Sum` prints a product sign: a product frame around it"
        result = eng.retrieve(query, eng.search_options(k=10))
        weights = eng.rank_weights().with_(dispatch=0.0)
        blind = {
            h.symbol: h.why["chunk_score"]
            for h in eng.retrieve(query, eng.search_options(k=10, weights=weights)).hits
        }
    # Without the feature the two handlers tie; with it the handler of `Sum` leads.
    assert blind["PrettyPrinter._print_Sum"] == pytest.approx(blind["PrettyPrinter._print_Product"])
    scores = {h.symbol: h.why["chunk_score"] for h in result.hits}
    lead = scores["PrettyPrinter._print_Sum"] - scores["PrettyPrinter._print_Product"]
    assert lead == pytest.approx(1.0, abs=1e-3)
    handler = next(h for h in result.hits if h.symbol == "PrettyPrinter._print_Sum")
    assert handler.why["features"]["dispatch"] == {"value": 1.0, "weight": 1.0, "contribution": 1.0}
    symbols = [s.symbol for s in result.symbols]
    assert symbols.index("PrettyPrinter._print_Sum") < symbols.index("PrettyPrinter._print_Product")


def test_only_handlers_in_the_best_files_count(tmp_path: Path) -> None:
    """A handler of the named type in a file nothing else points at gets no `dispatch`:
    otherwise every printer's handler of a common type would flood the hits."""
    pretty = (
        "class PrettyPrinter:\n"
        "    def _print_Sum(self, expr):\n        return self.pretty_frame(expr)\n\n"
        "    def pretty_frame(self, expr):\n        return 'pretty frame'\n"
    )
    rcode = "class RCodePrinter:\n    def _print_Sum(self, expr):\n        return 'sum'\n"
    with _indexed(tmp_path, {"pretty.py": pretty, "rcode.py": rcode}) as eng:
        eng.settings = replace(eng.settings, search=replace(eng.settings.search, expand_files=1))
        result = eng.retrieve(
            "pretty frame of a `Sum` is off", eng.search_options(k=10, mode="hybrid")
        )
    features = {(h.path, h.symbol): h.why["features"] for h in result.hits}
    assert features[("pretty.py", "PrettyPrinter._print_Sum")]["dispatch"]["value"] == 1.0
    assert "dispatch" not in features[("rcode.py", "RCodePrinter._print_Sum")]


def test_the_code_raising_a_quoted_error_gets_message(tmp_path: Path) -> None:
    """An error message is a template filled in: four of its words in a row place the
    code that raises it, and nothing else."""
    point = (
        "class Point:\n"
        "    def vel(self, frame):\n"
        "        if frame not in self._vel_dict:\n"
        "            raise ValueError('Velocity of point %s has not been'\n"
        "                             ' defined in ReferenceFrame %s' % (self.name, frame))\n"
        "        return self._vel_dict[frame]\n\n"
        "    def acc(self, frame):\n"
        "        # the velocity of point P is defined first\n"
        "        return self.vel(frame)\n"
    )
    query = (
        "P.vel(A) fails:\n\n"
        "ValueError: Velocity of point Q has not been defined in ReferenceFrame A\n"
    )
    with _indexed(tmp_path, {"point.py": point}) as eng:
        marked, result = _with_message(eng, query, k=5)
    assert marked == {"Point.vel"}
    top = result.hits[0]
    # On by default (`weight_message` 0.5).
    assert (top.symbol, top.why["features"]["message"]["contribution"]) == ("Point.vel", 0.5)


def test_a_message_template_places_a_message_no_four_words_of_which_are_in_code(
    tmp_path: Path,
) -> None:
    """`Filtering by author__name not allowed` has no four words in a row in Django's
    `'Filtering by %s not allowed'`: a template whose placeholders each stand for one
    word places it whole. A template of fewer than three fixed words places nothing."""
    admin = (
        "def check_lookup(key, allowed):\n"
        "    if key not in allowed:\n"
        "        raise PermissionDenied('Filtering by %s not allowed' % key)\n"
        "    return key\n\n\n"
        "def describe(key, value):\n"
        "    return '%s: %s' % (key, value)\n\n\n"
        "def report(count):\n"
        "    return f'{count} filters not allowed here'\n"
    )
    with _indexed(tmp_path, {"admin.py": admin}) as eng:
        for query, marked in [
            ("ValueError: Filtering by author__name not allowed", {"check_lookup"}),
            (
                "Filtering by  author__name\nnot allowed is raised: 'Filtering by x not allowed'",
                {"check_lookup"},
            ),
            ("KeyError: author__name: 3", set()),
            ("ValueError: Filtering by two words not allowed", set()),
        ]:
            found, result = _with_message(eng, query, k=5)
            assert found == marked, query


def test_the_code_raising_an_exception_that_formats_the_message_shares_it(
    tmp_path: Path,
) -> None:
    """click's `NoSuchCommand.__init__` formats `No such command {name!r}.`; the code at
    fault is `Group.resolve_command`, which raises it. The places constructing an
    exception class whose code holds the message get `message` too, but not those of
    an ordinary class, nor of an exception raised in more than RAISERS places."""
    errors = (
        "class UsageError(Exception):\n    pass\n\n\n"
        "class NoSuchCommand(UsageError):\n"
        "    def __init__(self, name):\n"
        "        super().__init__(f'No such command {name!r}.')\n\n\n"
        "class Banner:\n"
        "    def __init__(self, name):\n"
        "        self.text = f'Welcome to the {name} shell'\n"
    )
    core = (
        "from errors import Banner, NoSuchCommand\n\n\n"
        "class Group:\n"
        "    def resolve_command(self, name):\n"
        "        if name not in self.commands:\n"
        "            raise NoSuchCommand(name)\n"
        "        return self.commands[name]\n\n"
        "    def greet(self):\n"
        "        return Banner(self.name)\n"
    )
    with _indexed(tmp_path, {"errors.py": errors, "core.py": core}) as eng:
        for query, marked in [
            (
                "Error: No such command 'deploy'.",
                {"NoSuchCommand.__init__", "Group.resolve_command"},
            ),
            ('I see "Welcome to the cli shell" twice', {"Banner.__init__"}),
        ]:
            found, result = _with_message(eng, query, k=5)
            assert found == marked, query
            raising = {h.symbol: h.why.get("raises") for h in [*result.hits, *result.symbols]}
            if "Group.resolve_command" in marked:
                assert raising["Group.resolve_command"] == "p/errors.py#NoSuchCommand"
                assert raising["NoSuchCommand.__init__"] is None
        assert result.hits[0].symbol == "Banner.__init__"
        assert not any(h.why.get("raises") for h in result.hits)
    raisers = "".join(
        f"def run_{n}(name):\n    raise NoSuchCommand(name)\n\n\n" for n in range(RAISERS + 1)
    )
    files = {"errors.py": errors, "core.py": "from errors import NoSuchCommand\n\n\n" + raisers}
    with _indexed(tmp_path / "many", files) as eng:
        found, result = _with_message(eng, "Error: No such command 'deploy'.")
    assert found == {"NoSuchCommand.__init__"}


def test_short_name_drops_the_line_of_a_repeated_definition() -> None:
    """A repeated definition's id ends in `@line`; `add_raisers` reads an exception's
    name from ids, and `FooError@12` must still end in `Error`."""
    assert short_name("r/errors.py#FooError@12") == "FooError"
    assert short_name("r/errors.py#Outer.FooError") == "FooError"
    assert short_name("r/errors.py#Outer.method@40") == "method"


def test_a_name_only_in_the_querys_fenced_code_weighs_less(tmp_path: Path) -> None:
    """The audits' most common miss: the snippet's public API (`TypeAdapter`,
    `echo.Context`, `EnvironBuilder`) took the first places while the prose said what
    was wrong. A name written only in fenced code weighs FENCED_NAME of its naming when
    the prose around has words of its own; one the prose names, or a frame's, does not."""
    files = {
        "adapter.py": "class TypeAdapter:\n    def validate(self, data):\n        return data\n",
        "schema.py": "def typed_dict_schema(cls):\n    return {'type': 'typed-dict'}\n",
    }
    prose = (
        "Validating a TypedDict with a NotRequired field through the adapter fails, "
        "although the same dict validates as a model; the schema for typed dicts "
        "drops the field.\n"
    )
    snippet = "```python\nTypeAdapter(Movie).validate({'title': 'x'})\n```\n"
    with _indexed(tmp_path, files) as eng:
        named, _ = _named(eng, prose + snippet)
        assert named["TypeAdapter"] == round(FENCED_NAME, 4)
        named, _ = _named(eng, prose + "The TypeAdapter is at fault.\n" + snippet)
        assert named["TypeAdapter"] == 1.0
        named, _ = _named(eng, "Broken:\n" + snippet)  # no prose to tell it apart
        assert named["TypeAdapter"] == 1.0


def test_a_run_of_a_messages_words_many_chunks_hold_places_nothing(tmp_path: Path) -> None:
    """pydantic's audit: `'foo' is not a valid SomeEnum` marked every template holding
    `is not a valid` (43 chunks, none raising it). A run held by more than
    GENERIC_PHRASE_CHUNKS chunks of the pool (tests aside) gives no `message`; one held
    by few still does."""
    errors = "".join(
        f"class Bad{n}Error(ValueError):\n    msg = 'value is not a valid kind {n}'\n\n\n"
        for n in range(GENERIC_PHRASE_CHUNKS + 1)
    )
    enum = "def check(value, kind):\n    raise ValueError(f'{value!r} is not a member of {kind}')\n"
    tests = "".join(
        f"def test_{n}():\n    assert 'is not a valid' in run({n})\n\n\n" for n in range(9)
    )
    files = {"errors.py": errors, "enum.py": enum, "tests/test_enum.py": tests}
    with _indexed(tmp_path, files) as eng:
        found, _ = _with_message(eng, "ValueError: 'foo' is not a valid SomeEnum", k=10)
        assert found == set()
        found, _ = _with_message(eng, "ValueError: 'foo' is not a member of SomeEnum", k=10)
        assert found == {"check"}
    few = {"errors.py": errors.split("\n\n\n", GENERIC_PHRASE_CHUNKS)[0], "enum.py": enum}
    with _indexed(tmp_path / "few", few) as eng:
        found, _ = _with_message(eng, "ValueError: 'foo' is not a valid SomeEnum", k=10)
    assert found == {"Bad0Error"}


def test_the_check_guarding_a_matched_message_shares_it(tmp_path: Path) -> None:
    """Django raises `Filtering by … not allowed` when `lookup_allowed` says no: the
    check that failed is where the fix lands, yet only the raise site held the message.
    The functions its guard calls share the message; a name with more than
    GUARD_NAMESAKES definitions marks none, and a call before the guard marks nothing."""
    changelist = (
        "class ChangeList:\n"
        "    def get_filters(self, params):\n"
        "        for key in params:\n"
        "            prepared = prepare_lookup(key)\n"
        "            if not self.model_admin.lookup_allowed(prepared):\n"
        "                raise DisallowedLookup(f'Filtering by {key} not allowed')\n"
        "        return params\n"
    )
    options = (
        "class ModelAdmin:\n"
        "    def lookup_allowed(self, lookup):\n"
        "        return lookup in self.list_filter\n\n\n"
        "def prepare_lookup(key):\n"
        "    return key.strip()\n"
    )
    query = "WARNING django.security.DisallowedLookup: Filtering by author__id__exact not allowed"
    with _indexed(tmp_path, {"main.py": changelist, "options.py": options}) as eng:
        found, result = _with_message(eng, query, k=5)
    assert found == {"ChangeList.get_filters", "ModelAdmin.lookup_allowed"}
    guards = {h.symbol: h.why.get("guard_of") for h in [*result.hits, *result.symbols]}
    assert guards["ModelAdmin.lookup_allowed"] == "p/main.py#ChangeList.get_filters"
    assert guards["ChangeList.get_filters"] is None
    many = "".join(
        f"class Admin{n}:\n    def lookup_allowed(self, lookup):\n        return True\n\n\n"
        for n in range(GUARD_NAMESAKES + 1)
    )
    with _indexed(tmp_path / "many", {"main.py": changelist, "options.py": many}) as eng:
        found, result = _with_message(eng, query, k=5)
    assert found == {"ChangeList.get_filters"}


def test_guard_calls_reads_the_condition_above_a_message() -> None:
    go = (
        "func (b tomlBinding) Bind(req *http.Request, obj any) error {\n"
        "\tif err := decodeToml(req.Body, obj); err != nil {\n"
        '\t\treturn fmt.Errorf("cannot decode toml body: %w", err)\n'
        "\t}\n"
        "\treturn validate(obj)\n}\n"
    )
    assert guard_calls(go, ["cannot decode toml body: EOF"]) == ["decodeToml"]
    # A message under no `if` has no guard; nor one whose `if` is a line too far.
    assert (
        guard_calls('raise ValueError("cannot decode toml body")', ["cannot decode toml body"])
        == []
    )
    far = (
        "if check(x):\n" + "    y = 1\n" * GUARD_LINES + '    raise E("cannot decode toml body")\n'
    )
    assert guard_calls(far, ["cannot decode toml body"]) == []


def test_a_quoted_message_brings_and_marks_the_code_printing_it(tmp_path: Path) -> None:
    """tmux prints `can't find session: work` with no `error:` before it. Quoted, the
    message's own words (`can`, `t`: a stop word and a letter the query's terms leave
    out) bring the chunks holding them, and the one printing the phrase gets `message`;
    a quote of two words is too short to place anything."""
    files = {
        "cmd-find.c": (
            "int cmd_find_target(struct item *item, const char *target)\n{\n"
            "\tif (lookup(target) == NULL) {\n"
            '\t\tcmdq_error(item, "can\'t find session: %s", target);\n'
            "\t\treturn (-1);\n\t}\n\treturn (0);\n}\n"
        ),
        "session.c": (
            "struct session *session_find(const char *name)\n{\n"
            "\t/* find a session by its name */\n\treturn (lookup(name));\n}\n"
        ),
    }
    with _indexed(tmp_path, files) as eng:
        quoted = eng.retrieve('"can\'t find session"', eng.search_options(k=5, collect=True))
        short = eng.retrieve('"find session"', eng.search_options(k=5, collect=True))
    assert quoted.candidates is not None and short.candidates is not None
    marked = {c["symbol"] for c in quoted.candidates if c["features"].get("message")}
    assert marked == {"cmd_find_target"}
    assert quoted.hits[0].symbol == "cmd_find_target"
    assert not any(c["features"].get("message") for c in short.candidates)


def test_a_private_member_is_named_without_its_hash(tmp_path: Path) -> None:
    """`this.#retry()` and `Client.retry` name the JavaScript private method `#retry`,
    as `retry` names the module function: the `name` feature marks them alike."""
    client = (
        "export class Client {\n"
        "  #retry(request) {\n    return this.#send(request);\n  }\n\n"
        "  #send(request) {\n    return fetch(request);\n  }\n}\n"
    )
    helpers = "export function retry(request) {\n  return request;\n}\n"
    files = {"src/client.js": client, "src/helpers.js": helpers}
    with _indexed(tmp_path, files) as eng:
        for query, marked in [
            # Two symbols answer to `retry`: each named less strongly (specificity).
            ("why does this.#retry() loop", {"Client.#retry": 0.5906, "retry": 0.5906}),
            # The qualified name names its method fully; its last part still names both.
            ("Client.retry sends twice", {"Client.#retry": 1.0, "retry": 0.5906}),
            ("Client.#send is never called", {"Client.#send": 1.0}),
        ]:
            assert _named(eng, query)[0] == marked, query


def _named(eng: Engine, query: str) -> tuple[dict[str | None, float], SearchResult]:
    """The `name` feature of each candidate it marks, by symbol, and the result."""
    result = eng.retrieve(query, eng.search_options(k=5, collect=True))
    assert result.candidates is not None
    named = {
        c["symbol"]: round(c["features"]["name"], 4)
        for c in result.candidates
        if c["features"].get("name")
    }
    return named, result


def _with_message(eng: Engine, query: str, **options: Any) -> tuple[set[str | None], SearchResult]:
    """The symbols of the candidates given `message`, and the result."""
    result = eng.retrieve(query, eng.search_options(collect=True, **options))
    assert result.candidates is not None
    return {c["symbol"] for c in result.candidates if c["features"].get("message")}, result


def _framed(eng: Engine, query: str) -> tuple[dict[tuple[str, int], float], SearchResult]:
    """The `frame` feature of each candidate it marks, by (path, first line), and the
    result."""
    result = eng.retrieve(query, eng.search_options(k=5, collect=True))
    assert result.candidates is not None
    framed = {
        (c["path"], c["start_line"]): c["features"]["frame"]
        for c in result.candidates
        if c["features"].get("frame")
    }
    return framed, result


def test_a_ruby_method_is_named_without_its_bang_or_question_mark(tmp_path: Path) -> None:
    """A query's words lose Ruby's `!` and `?` (`Story.recalculate!` reads as
    `Story.recalculate`): the `name` feature had never marked such a method, and the
    wrong class's `recalculate!` came first on its words alone."""
    story = (
        "class Story\n  def recalculate!\n    self.score = 1\n  end\n\n"
        "  def new?\n    true\n  end\nend\n"
    )
    comment = "class Comment\n  def recalculate!\n    self.score = 2\n  end\nend\n"
    files = {"app/models/story.rb": story, "app/models/comment.rb": comment}
    with _indexed(tmp_path, files) as eng:
        for query, marked in [
            (
                "Story.recalculate! scores twice",
                {"Story.recalculate!": 1.0, "Comment.recalculate!": 0.5906},
            ),
            ("why is Story.new? always true", {"Story.new?": 1.0}),
            ("Story.new?", {"Story.new?": 1.0}),
        ]:
            named, result = _named(eng, query)
            assert named == marked, query
            assert result.symbols[0].symbol == next(iter(marked)), query


def test_a_question_about_what_uses_a_name_is_answered_by_its_users(tmp_path: Path) -> None:
    """ "where is NotifyJob enqueued" and "who calls verify_token" had come back as the
    definition and its file's members: the callers' own words seldom match the
    question. The users follow the first result in every view, best edge first, with
    `why.caller_of` naming what they use."""
    files = {
        "app/__init__.py": "",
        # Two sections of that name: no code, so the name stays the function's alone.
        "docs/api.md": "# API\n\n## verify_token\n\nChecks.\n\n# Old\n\n## verify_token\n\nOld.\n",
        "app/auth.py": (
            "def verify_token(token):\n    return token == 'ok'\n\n\n"
            "def verify_token_shape(token):\n    return len(token) == 2\n\n\n"
            "def refresh_token(token):\n    return token + 'x'\n"
        ),
        "app/views.py": (
            "from app.auth import verify_token\n\n\n"
            "def login(request):\n    return verify_token(request.token)\n"
        ),
        "app/admin.py": (
            "from app import auth\n\n\n"
            "def dashboard(request):\n    if not auth.verify_token(request.token):\n"
            "        return None\n    return request\n"
        ),
    }
    with _indexed(tmp_path, files) as eng:
        asked = eng.retrieve("who calls verify_token", eng.search_options(k=5))
        assert asked.query.wants_callers
        target = "p/app/auth.py#verify_token"
        assert asked.hits[0].symbol == "verify_token"
        users = [(h.symbol, h.why.get("caller_of")) for h in asked.hits[1:3]]
        assert sorted(users) == [("dashboard", target), ("login", target)]
        assert asked.hits[1].why["graph_path"] == [
            target,
            f"p/{asked.hits[1].path}#{asked.hits[1].symbol}",
        ]
        assert [s.symbol for s in asked.symbols[:3]][0] == "verify_token"
        assert {s.symbol for s in asked.symbols[1:3]} == {"login", "dashboard"}
        assert all(s.why["caller_of"] == target for s in asked.symbols[1:3])
        assert {f.path for f in asked.files[1:3]} == {"app/views.py", "app/admin.py"}
        assert "caller_of" not in asked.files[0].why
        for view in (asked.hits, asked.symbols, asked.files):  # shown in order
            scores = [item.score for item in view]
            assert scores == sorted(scores, reverse=True)
        # Where it is defined is no question about its users.
        defined = eng.retrieve("where is verify_token defined", eng.search_options(k=5))
        assert not defined.query.wants_callers
        assert not any("caller_of" in h.why for h in defined.hits)


def test_a_stub_ranks_below_the_module_it_describes(tmp_path: Path) -> None:
    """`curve.pyi` repeats `curve.py`'s signatures without the code: it is marked `stub`
    and its twin comes first. `fastcurve.pyi` stands for a C extension: no module beside
    it, so it is the only view of that code and is not marked."""
    module = (
        "def split_curve(points, t):\n"
        '    """Split a Bezier curve at parameter t (de Casteljau)."""\n'
        "    left, right = [points[0]], [points[-1]]\n"
        "    return left, right\n"
    )
    stub = "def split_curve(points: list[float], t: float) -> tuple[list, list]: ...\n"
    extension = "def split_curve_fast(points: list[float], t: float) -> tuple[list, list]: ...\n"
    files = {"pkg/curve.py": module, "pkg/curve.pyi": stub, "pkg/fastcurve.pyi": extension}
    with _indexed(tmp_path, files) as eng:
        result = eng.retrieve("split curve points t", eng.search_options(k=5, collect=True))
    assert result.candidates is not None
    marked = {c["path"] for c in result.candidates if c["features"].get("stub")}
    assert marked == {"pkg/curve.pyi"}
    order = [hit.path for hit in result.hits]
    assert order.index("pkg/curve.py") < order.index("pkg/curve.pyi")
    stub_hit = result.hits[order.index("pkg/curve.pyi")]
    # On by default (`weight_stub` -0.5).
    assert stub_hit.why["features"]["stub"]["contribution"] == -0.5


def test_a_typescript_declaration_file_is_a_stub_of_the_code_beside_it(tmp_path: Path) -> None:
    """Umami's `tracker/index.d.ts` declares `tracker/index.js` and led 2 of 12 issue
    texts over it: a `.d.ts` (`.d.mts`) whose code file is indexed beside it is marked
    `stub`; one declaring a package with no code beside it is not. Axios's
    `index.d.cts` declares the package's CommonJS build, not indexed, beside `index.js`:
    it had led the file view of 6 of 25 issues."""
    code = (
        "export function trackEvent(name, data) {\n"
        "  const payload = { name, data, url: location.href };\n"
        "  return send(payload);\n"
        "}\n"
    )
    declared = "export function trackEvent(name: string, data?: object): Promise<void>;\n"
    files = {
        "tracker/index.js": code,
        "tracker/index.d.ts": declared,
        "esm/track.mjs": code.replace("location.href", "document.URL"),
        "esm/track.d.mts": declared.replace("object", "unknown"),
        "types/vendor.d.ts": declared.replace("trackEvent", "trackVendorEvent"),
        "tracker/index.d.cts": declared.replace("data?", "info?"),
    }
    with _indexed(tmp_path, files) as eng:
        result = eng.retrieve("trackEvent name data", eng.search_options(k=10, collect=True))
    assert result.candidates is not None
    marked = {c["path"] for c in result.candidates if c["features"].get("stub")}
    assert marked == {"tracker/index.d.ts", "esm/track.d.mts", "tracker/index.d.cts"}
    order = [hit.path for hit in result.hits]
    assert order.index("tracker/index.js") < order.index("tracker/index.d.ts")
    assert order.index("types/vendor.d.ts") < order.index("tracker/index.d.ts")


def test_a_short_symbol_is_marked_and_ranks_below_the_code_doing_the_work(
    tmp_path: Path,
) -> None:
    """An accessor of three lines (decorator, `def`, `return`) and a `pass` class are
    marked `short`; a four-line function is not, and neither is the three-line last
    window of a long function: the symbol's own lines decide, not the chunk's."""
    steps = "".join(
        f"    total = total + weight_{i} * factor_{i} - offset_{i} * scale_{i}"
        f" + bias_{i} * gain_{i}\n"
        for i in range(24)
    )
    code = (
        "class Rate:\n"
        "    @property\n"
        "    def rate_limit(self):\n"
        "        return self._rate_limit\n"
        "\n"
        "    def apply_rate_limit(self, requests):\n"
        "        allowed = requests[: self._rate_limit]\n"
        "        dropped = requests[self._rate_limit :]\n"
        "        return allowed, dropped\n"
        "\n"
        "\n"
        "class RateLimitError(Exception):\n"
        "    pass\n"
        "\n"
        "\n"
        "def blend(total):\n" + steps + "    return total\n"
    )
    with _indexed(tmp_path, {"limits.py": code}) as eng:
        result = eng.retrieve(
            "rate limit blend total weight", eng.search_options(k=10, collect=True)
        )
        options = eng.search_options(k=10)
        ranked = [h.symbol for h in eng.retrieve("rate limit", options).hits]
        unweighted = replace(options, weights=options.weights.with_(short=0.0))
        ranked_unweighted = [h.symbol for h in eng.retrieve("rate limit", unweighted).hits]
    assert result.candidates is not None
    spans = {(c["symbol"], c["start_line"], c["end_line"]) for c in result.candidates}
    assert ("blend", 39, 41) in spans  # the long function's last window: three lines
    marked = {
        (c["symbol"], c["start_line"]): c["features"].get("short", 0.0)
        for c in result.candidates
        if c["symbol"] != "Rate"
    }
    assert marked == {
        ("Rate.rate_limit", 2): 1.0,
        ("Rate.apply_rate_limit", 6): 0.0,
        ("RateLimitError", 12): 1.0,
        ("blend", 16): 0.0,
        ("blend", 28): 0.0,
        ("blend", 39): 0.0,
    }
    # On by default (`weight_short` -0.2), the method doing the work leads; without it,
    # the accessor whose name is the query would.
    assert ranked[:2] == ["Rate.apply_rate_limit", "Rate.rate_limit"]
    assert ranked_unweighted[:2] == ["Rate.rate_limit", "Rate.apply_rate_limit"]


def test_a_literal_the_query_quotes_finds_the_code_holding_it(tmp_path: Path) -> None:
    """A message id in backticks (pylint's `invalid-name`) is a string literal in the
    code that emits it, which says little else the query says; a function about invalid
    names in words, or one holding another literal that starts alike, is not marked."""
    code = (
        "class NameChecker:\n"
        "    def visit_assignname(self, node):\n"
        '        """Check an assigned name against the pattern of its kind."""\n'
        "        if not self.pattern.match(node.name):\n"
        '            self.add_message("invalid-name", node=node)\n'
        "\n"
        "    def report_invalid_names(self, stats):\n"
        '        """Print how many invalid names of each kind were found."""\n'
        "        for kind, count in stats.items():\n"
        '            print("invalid-names", kind, "name", count)\n'
    )
    query = "False positive `invalid-name` for a module-level constant name"
    with _indexed(tmp_path, {"checks/names.py": code}) as eng:
        options = eng.search_options(k=10, collect=True)
        result = eng.retrieve(query, options)
        unweighted = replace(options, weights=options.weights.with_(literal=0.0))
        ranked_unweighted = [h.symbol for h in eng.retrieve(query, unweighted).hits]
        # Written bare, as pylint's messages often are: "[invalid-name] False positive …".
        bare = eng.retrieve(query.replace("`", ""), options).hits
    marked = _by_symbol(result, "literal")
    assert marked == {
        "NameChecker": 0.0,
        "NameChecker.visit_assignname": 1.0,
        "NameChecker.report_invalid_names": 0.0,
    }
    ranked = [h.symbol for h in result.hits if h.symbol != "NameChecker"]
    assert ranked == ["NameChecker.visit_assignname", "NameChecker.report_invalid_names"]
    assert [s for s in ranked_unweighted if s != "NameChecker"] == ranked[::-1]
    assert [h.symbol for h in bare if h.symbol != "NameChecker"] == ranked


def test_a_literal_padded_with_spaces_in_the_code_is_found(tmp_path: Path) -> None:
    """Sphinx's audit: the code writes `'   :no-index-entry:'`; the issue quotes
    `:no-index-entry:`, and the whole-literal match had never fired."""
    code = (
        "def header_lines(options):\n"
        "    if options.no_index_entry:\n"
        "        yield '   :no-index-entry:'\n\n\n"
        "def other_lines(options):\n"
        "    yield '   :no-index-entries-x:'\n"
    )
    with _indexed(tmp_path, {"ext/render.py": code}) as eng:
        result = eng.retrieve(
            "The `:no-index-entry:` option is dropped", eng.search_options(k=10, collect=True)
        )
    assert _by_symbol(result, "literal") == {"header_lines": 1.0, "other_lines": 0.0}


def test_a_packages_tools_for_its_users_tests_are_not_ranked_as_tests(tmp_path: Path) -> None:
    """Django's `django/test/` (the test client, TestCase) is code a bug is fixed in:
    a `test` package below the top that holds no file a test runner collects carries no
    test penalty. A suite nested in a package, and a top-level one, still do."""
    client = "class Client:\n    def follow_redirect(self, response):\n        return response\n"
    files = {
        "web/test/__init__.py": "from web.test.client import Client\n",
        "web/test/client.py": client,
        "web/core/tests/__init__.py": "",
        "web/core/tests/helpers.py": "def follow_redirect_twice(client):\n    pass\n",
        "web/core/tests/test_redirects.py": "def test_follow_redirect():\n    pass\n",
        "tests/__init__.py": "",
        "tests/redirect_cases.py": "def follow_redirect_case():\n    pass\n",
    }
    with _indexed(tmp_path, files) as eng:
        result = eng.retrieve("follow redirect", eng.search_options(k=5, collect=True))
    assert result.candidates is not None
    marked = {c["path"]: bool(c["features"].get("test")) for c in result.candidates}
    assert marked == {
        "web/test/__init__.py": False,
        "web/test/client.py": False,
        "web/core/tests/helpers.py": True,
        "web/core/tests/test_redirects.py": True,
        "tests/redirect_cases.py": True,
    }


def test_a_class_is_lifted_by_its_best_member_in_the_symbol_view(tmp_path: Path) -> None:
    printer = (
        "class CodePrinter:\n    '''Prints code.'''\n    indent = 4\n\n"
        "    def emit_sinc(self, expr):\n        return 'sinc sinc sinc'\n"
    )
    other = "def sinc_table():\n    return 'sinc'\n"
    with _indexed(tmp_path, {"printer.py": printer, "table.py": other}) as eng:
        weights = RankWeights().only("bm25").with_(bm25=1.0)
        options = eng.search_options(k=5, weights=weights, symbol_file_weight=0.0)

        def ranked(share: float) -> list[tuple[str, float]]:
            found = eng.retrieve("sinc", replace(options, symbol_member_share=share)).symbols
            return [(s.symbol, round(s.score, 4)) for s in found]

        plain, lifted = ranked(0.0), ranked(0.9)
        result = eng.retrieve("sinc", replace(options, symbol_member_share=0.9))
        symbols = result.symbols
    best = dict(plain)["CodePrinter.emit_sinc"]
    # The hits rank and explain the class as the view does.
    hit = next(h for h in result.hits if h.symbol == "CodePrinter")
    assert hit.why["member_score"] == pytest.approx(0.9 * best, abs=1e-4)
    assert (hit.score, hit.why["file_share"]) == (pytest.approx(0.9 * best, abs=1e-4), 0.0)
    assert dict(plain)["CodePrinter"] < 0.9 * best
    assert dict(lifted)["CodePrinter"] == round(0.9 * best, 4)
    # Only the owner moves; its members and other symbols keep their scores.
    assert [x for x in lifted if x[0] != "CodePrinter"] == [
        x for x in plain if x[0] != "CodePrinter"
    ]
    why = {s.symbol: s.why for s in symbols}["CodePrinter"]
    assert why["member_score"] == pytest.approx(0.9 * best, abs=1e-4)
    assert why["chunk_score"] < why["member_score"]


def test_the_symbol_view_ranks_code_not_document_sections(tmp_path: Path) -> None:
    """`--symbols` ranks functions, methods and classes; a README section that matches
    better stays among the hits and files (black's "Gauging changes > diff-shades" took
    a slot of the symbol view)."""
    readme = "# Caching\n\n## Cache directory\n\nThe cache directory holds the cache.\n"
    code = "def cache_dir():\n    return 'cache'\n"
    with _indexed(tmp_path, {"README.md": readme, "cache.py": code}) as eng:
        weights = RankWeights().only("bm25").with_(bm25=1.0)
        result = eng.retrieve("cache directory", eng.search_options(k=5, weights=weights))
    assert result.hits[0].path == "README.md"
    assert [(s.path, s.symbol) for s in result.symbols] == [("cache.py", "cache_dir")]
    assert {f.path for f in result.files} == {"README.md", "cache.py"}


def test_the_symbol_view_gives_the_lines_that_define_a_symbol(tmp_path: Path) -> None:
    """A long class's outline is cut into windows; one that holds only members'
    signatures is evidence for the class, not where the class is."""
    methods = "".join(
        f"    def handle_{n}(self, request, response, timeout, retries, headers):\n"
        f"        return request.send_{n}(response, timeout, retries, headers)\n\n"
        for n in range(40)
    )
    source = f"class Registry:\n{methods}    zebra_marker = 1\n"
    last = source.count("\n")
    with _indexed(tmp_path, {"registry.py": source}) as eng:
        ids = [
            e.id
            for entries in eng.backend.chunks.chunk_entries().values()
            for e in entries
            if e.symbol_id and e.symbol_id.endswith("#Registry")
        ]
        windows = sorted(
            (c.start_line, c.end_line) for c in eng.backend.chunks.chunks(ids).values()
        )
        options = eng.search_options(k=5, mode="bm25")
        symbols = {s.symbol: s for s in eng.retrieve("zebra_marker", options).symbols}
        method = {s.symbol: s for s in eng.retrieve("handle_7", options).symbols}
    assert len(windows) > 1 and windows[0][0] == 1 and windows[-1][1] == last
    registry = symbols["Registry"]
    assert (registry.start_line, registry.end_line) == (1, last)
    assert registry.why["best_chunk_lines"] == list(windows[-1])
    # A symbol whose best chunk is the whole of it says nothing more.
    handle = method["Registry.handle_7"]
    assert (handle.start_line, handle.end_line) == (23, 24)
    assert "best_chunk_lines" not in handle.why


def test_graph_rank_spreads_from_the_seeds(engine: Engine) -> None:
    result = engine.retrieve(
        "why does verify_token reject a valid secret?", engine.search_options(k=5, collect=True)
    )
    ppr = _by_symbol(result, "ppr")
    # The best seed leads; what it calls and what calls it follow; a file the graph does
    # not connect to the seeds gets nothing.
    assert ppr["verify_token"] == 1.0
    assert ppr["compare"] > 0 and ppr["test_verify_token"] > 0
    assert ppr["compare"] > ppr["Session.refresh"]
    assert ppr["load"] == 0.0


def test_graph_expansion_brings_the_head_of_a_huge_symbol(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reached symbol brings at most SYMBOL_CHUNKS of its chunks, from its start (a
    generated function of thousands of chunks would otherwise flood the pool)."""
    body = "".join(f"    value_{n} = compute_{n}(value_{n - 1})\n" for n in range(1, 400))
    files = {
        "a.py": "from b import bulky\n\n\ndef entry():\n    return bulky()\n",
        "b.py": f"def bulky():\n    value_0 = 0\n{body}    return value_399\n",
    }
    with _indexed(tmp_path, files) as eng:
        stored = sorted(
            e.start_line
            for entries in eng.backend.chunks.chunk_entries().values()
            for e in entries
            if e.path == "b.py" and e.symbol_id and e.symbol_id.endswith("#bulky")
        )
        assert len(stored) > 3

        def pooled(mode: str) -> set[int]:
            options = eng.search_options(
                k=1, candidates=1, mode=mode, graph_seeds=1, expand_files=0, collect=True
            )
            found = eng.retrieve("entry", options).candidates or []
            return {c["start_line"] for c in found if c["symbol"] == "bulky"}

        without_graph = pooled("hybrid")
        assert pooled("hybrid+graph") == set(stored)
        monkeypatch.setattr(candidates, "SYMBOL_CHUNKS", 2)
        assert pooled("hybrid+graph") == without_graph | set(stored[:2])
        assert len(without_graph | set(stored[:2])) < len(stored)


def test_the_files_named_most_strongly_take_the_path_budget_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Files the query names share PATH_CHUNKS chunks: the one named by its path (1.0)
    before the one named by its stem (0.5), whatever the order of Python's sets (which
    varies between processes and made the pool, so the results, vary run to run)."""
    files = {
        "pkg/alpha.py": "".join(f"def a{n}():\n    return {n}\n\n\n" for n in range(4)),
        "pkg/beta.py": "".join(f"def b{n}():\n    return {n}\n\n\n" for n in range(4)),
    }
    monkeypatch.setattr(candidates, "PATH_CHUNKS", 4)
    with _indexed(tmp_path, files) as eng:
        options = eng.search_options(k=1, candidates=1, expand_files=0, collect=True)
        found = eng.retrieve("pkg/alpha.py misbehaves when pkg.beta calls it", options).candidates
    named = {(c["path"], c["features"].get("path")) for c in found or [] if "path" in c["features"]}
    assert named == {("pkg/alpha.py", 1.0)}


def test_a_dotted_module_names_its_file_in_a_source_root(tmp_path: Path) -> None:
    repo = make_git_repo(
        tmp_path / "proj",
        {
            "src/shop/__init__.py": "",
            "src/shop/billing.py": "def charge(order):\n    return order.total\n",
            "src/shop/orders.py": "def place(cart):\n    return cart\n",
            "lib/shop/billing.py": "def charge(order):\n    return 0\n",
            "lib/__init__.py": "",
        },
    )
    eng, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    eng.index(root)

    def named(query: str) -> dict[str, float]:
        hits = eng.retrieve(query, eng.search_options(k=10)).hits
        return {
            h.path: h.why["features"]["path"]["value"] for h in hits if "path" in h.why["features"]
        }

    # `src/` holds packages without being one; `lib/` is a package, so `shop.billing`
    # is `lib.shop.billing` there: only the file stem names it, shared by two files.
    stem_only = pytest.approx(0.5 / (1 + math.log(2)), abs=1e-4)
    assert named("the rounding in shop.billing is off") == {
        "src/shop/billing.py": 0.7,
        "lib/shop/billing.py": stem_only,
    }
    assert named("carts placed twice, see shop.orders") == {"src/shop/orders.py": 0.7}


def test_a_query_of_one_word_finds_the_symbol_of_that_name(tmp_path: Path) -> None:
    """`trigsimp` looked for alone means the function: not the one that says the word
    most often, nor a method of the same name."""
    code = (
        "def trigsimp(expr):\n"
        '    """Simplify an expression with identities."""\n'
        "    return _rewrite(expr)\n"
        "\n"
        "\n"
        "def trigsimp_groebner(expr, hints):\n"
        '    """Like trigsimp, by a Groebner basis: trigsimp with hints.\n'
        "\n"
        "    trigsimp is faster; use trigsimp first and this when trigsimp fails.\n"
        '    """\n'
        "    return _basis(expr, hints)\n"
    )
    method = (
        "class Expr:\n"
        "    def trigsimp(self, **args):\n"
        '        """See the trigsimp function in simplify.trig: trigsimp(self)."""\n'
        "        return trigsimp(self, **args)\n"
    )
    files = {"simplify/trig.py": code, "core/expr.py": method}
    with _indexed(tmp_path, files) as eng:
        result = eng.retrieve("trigsimp", eng.search_options(k=5, collect=True))
    assert result.hits[0].symbol == "trigsimp"
    named = _by_symbol(result, "name")
    # The method shares the name with the function: 1 / (1 + ln 2).
    assert named == {
        "trigsimp": 1.0,
        "trigsimp_groebner": 0.0,
        "Expr": 0.0,
        "Expr.trigsimp": pytest.approx(1 / (1 + math.log(2)), abs=1e-4),
    }


def test_a_named_symbol_in_a_named_file_has_both_pieces_of_evidence(tmp_path: Path) -> None:
    """`lambdify` alone names the function of `lambdify.py` twice over, by its name and
    by its file's; the class of that name elsewhere only by its name. (Sympy's class in
    `experimental_lambdify.py` came first with the name alone.)"""
    body = '    """Turn an expression into a function of its arguments."""\n    return expr\n'
    files = {
        "utilities/lambdify.py": "def lambdify(args, expr):\n" + body,
        "plotting/experimental.py": "class lambdify:\n    def __init__(self, args, expr):\n"
        + body.replace("    ", "        "),
    }
    with _indexed(tmp_path, files) as eng:
        result = eng.retrieve("lambdify", eng.search_options(k=5, collect=True))
    assert result.candidates is not None
    named = {
        (c["path"], c["symbol"]): (c["features"].get("name"), c["features"].get("path"))
        for c in result.candidates
    }
    # The file's stem names it, shared by no other file: 0.5.
    assert named == {
        ("utilities/lambdify.py", "lambdify"): (1.0, 0.5),
        ("plotting/experimental.py", "lambdify"): (1.0, None),
        ("plotting/experimental.py", "lambdify.__init__"): (None, None),
    }
    [function] = [h for h in result.hits if h.path == "utilities/lambdify.py"]
    assert function.why["features"]["path"]["value"] == 0.5


def test_a_frame_naming_a_method_with_its_class_finds_that_method(tmp_path: Path) -> None:
    """`at Router.handle (…/router.js:3:9)` names the method; only a plain function name
    (`at getUser`) found its function before. `at Router.#retry` names a private one."""
    files = {
        "lib/router.js": (
            "class Router {\n  handle(req) {\n    return this.#retry(req)\n  }\n"
            "  #retry(req) {\n    return this.stack[0](req.user.id)\n  }\n}\n"
            "function handle(event) {\n  return event\n}\n"
            "function retry(event) {\n  return event\n}\n"
        ),
        "src/users.js": "function getUser(req) {\n  return req.user.id\n}\n",
    }
    trace = (
        "TypeError: Cannot read properties of undefined (reading 'id')\n"
        "    at getUser (/srv/app/src/users.js:2:20)\n"
        "    at Router.#retry (/srv/app/lib/router.js:6:12)\n"
        "    at Router.handle (/srv/app/lib/router.js:3:9)"
    )
    with _indexed(tmp_path, files) as eng:
        result = eng.retrieve(trace, eng.search_options(k=5, collect=True))
    assert result.candidates is not None
    framed = {(c["path"], c["symbol"]) for c in result.candidates if "frame" in c["features"]}
    # The functions `handle` and `retry` of the same file are no frames: the trace names
    # the methods (a private one by its `#`).
    assert framed == {
        ("src/users.js", "getUser"),
        ("lib/router.js", "Router.handle"),
        ("lib/router.js", "Router.#retry"),
    }


def test_a_frame_in_a_nested_function_credits_the_holder_of_its_line(tmp_path: Path) -> None:
    """typer's audit: `line 9, in internal_convertor` framed both functions nesting an
    `internal_convertor`, though only the second holds line 9."""
    source = (
        "def list_convertor(items):\n"
        "    def internal_convertor(value):\n"
        "        return [v for v in value]\n"
        "    return internal_convertor\n"
        "\n\n"
        "def tuple_convertor(types):\n"
        "    def internal_convertor(value):\n"
        "        return tuple(t(v) for t, v in zip(types, value))\n"
        "    return internal_convertor\n"
    )
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/venv/lib/site-packages/pkg/convert.py", line 9, in internal_convertor\n'
        "    return tuple(t(v) for t, v in zip(types, value))\n"
        "TypeError: 'NoneType' object is not callable\n"
    )
    with _indexed(tmp_path, {"pkg/convert.py": source}) as eng:
        framed, _ = _framed(eng, trace)
    assert framed == {("pkg/convert.py", 7): 1.0}  # `tuple_convertor`'s chunk


def test_a_frame_without_a_symbols_name_is_its_lines_code(tmp_path: Path) -> None:
    """fastify's audit: `at /srv/…/lib/request.js:4:12` (an anonymous function) and
    `at Object.get [as hostname] (…:9:48)` (a getter: no symbol is named `get`) gave their
    file nothing: the chunk holding the frame's line is framed, the innermost at 1.0;
    a frame whose name a symbol of its file has keeps to that symbol."""
    files = {
        "lib/request.js": (
            "function Request(raw) {\n  this.raw = raw\n"
            "  this.parse = function (q) {\n    return q.split('&')\n  }\n}\n\n"
            "Object.defineProperties(Request.prototype, {\n"
            "  hostname: { get () { return this.raw.headers.host.split(':')[0] } }\n})\n"
        ),
        "lib/reply.js": "function send(payload) {\n  return payload\n}\n",
    }
    trace = (
        "TypeError: Cannot read properties of undefined (reading 'split')\n"
        "    at Object.get [as hostname] (/srv/node_modules/fastify/lib/request.js:9:48)\n"
        "    at /srv/node_modules/fastify/lib/request.js:4:14\n"
        "    at send (/srv/node_modules/fastify/lib/reply.js:2:3)\n"
    )
    with _indexed(tmp_path, files) as eng:
        framed, _ = _framed(eng, trace)
    assert framed == {
        ("lib/request.js", 9): 1.0,  # the getter's line: `Request.hostname`, not `get`
        ("lib/request.js", 1): OUTER_FRAME,  # the anonymous function's, in `Request`
        ("lib/reply.js", 1): OUTER_FRAME,  # `send`, by its name
    }


def test_a_framed_functions_chunk_holding_the_line_is_its_evidence(tmp_path: Path) -> None:
    """werkzeug's audit: the hit for a frame at `run_wsgi` line 370 showed lines 382–393;
    every chunk of the function had the frame's weight. The chunk holding the frame's
    line keeps it, the function's others weigh FRAME_OTHER_CHUNK of it."""
    body = "".join(f"    step_{n} = handle(environ, {n})\n" for n in range(160))
    files = {"serving.py": f"def run_wsgi(environ):\n{body}    return environ\n"}
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/srv/venv/lib/python3.12/site-packages/serving.py", line 150, in run_wsgi\n'
        "    step_148 = handle(environ, 148)\n"
        "KeyError: 'x'\n"
    )
    with _indexed(tmp_path, files) as eng:
        framed, result = _framed(eng, trace)
    starts = sorted(start for _, start in framed)
    assert len(starts) > 1
    holding = max(start for start in starts if start <= 150)
    assert framed == {("serving.py", s): 1.0 if s == holding else FRAME_OTHER_CHUNK for s in starts}
    assert result.hits[0].start_line <= 150 <= result.hits[0].end_line


def test_a_module_chunk_of_only_the_files_head_counts_as_short(tmp_path: Path) -> None:
    """koel's `<?php namespace …; use …;` chunks were 19% of its PHP chunks and took 12
    of 120 top-8 places of 15 questions (eShop's `namespace X;` chunks likewise): a
    module chunk holding nothing but imports, package and namespace lines is `short`;
    one with a statement of its own is not."""
    middleware = (
        "<?php\n\nnamespace App\\Http\\Middleware;\n\n"
        "use Closure;\nuse Illuminate\\Http\\Request;\n\n"
        "class RequireAdmin\n{\n"
        "    public function handle(Request $request, Closure $next)\n    {\n"
        "        abort_unless($request->user()->is_admin, 403);\n"
        "        return $next($request);\n    }\n}\n"
    )
    routes = (
        "<?php\n\nuse Illuminate\\Support\\Facades\\Route;\n\n"
        "Route::middleware('admin')->group(function () {\n"
        "    Route::get('settings', 'SettingsController@index');\n});\n"
    )
    files = {"app/Http/Middleware/RequireAdmin.php": middleware, "routes/web.php": routes}
    with _indexed(tmp_path, files) as eng:
        options = eng.search_options(k=20, collect=True)
        result = eng.retrieve("middleware admin request closure route", options)
    assert result.candidates is not None
    modules = {
        c["path"]: c["features"].get("short", 0.0) for c in result.candidates if c["symbol"] is None
    }
    assert modules == {"app/Http/Middleware/RequireAdmin.php": 1.0, "routes/web.php": 0.0}


def test_a_question_asking_for_tests_ranks_them_with_the_code(tmp_path: Path) -> None:
    """eShop's "unit tests for creating an order" and koel's "which tests cover smart
    playlist rules" had no test in their top 10: test code weighs −1. A question asking
    for tests weighs them as code; any other keeps them below."""
    code = (
        "class RateLimiter:\n"
        "    def allow(self, client, now):\n"
        "        window = self.windows.get(client, [])\n"
        "        recent = [t for t in window if now - t < self.period]\n"
        "        return len(recent) < self.limit\n"
    )
    test = (
        "from limiter import RateLimiter\n\n\n"
        "def test_rate_limiter_allows_until_the_limit():\n"
        "    limiter = RateLimiter()\n"
        "    assert limiter.allow('a', 0)\n"
        "    assert limiter.allow('a', 1)\n"
    )
    with _indexed(tmp_path, {"limiter.py": code, "tests/test_limiter.py": test}) as eng:
        asked = eng.retrieve("unit tests for the rate limiter", eng.search_options(k=5))
        plain = eng.retrieve("how does the rate limiter allow a client", eng.search_options(k=5))
    assert asked.query.wants_tests and not plain.query.wants_tests
    assert asked.hits[0].path == "tests/test_limiter.py"
    assert asked.hits[0].why["features"]["test"]["contribution"] == 0.0
    assert plain.hits[0].path == "limiter.py"
    assert plain.hits[-1].why["features"]["test"]["contribution"] == -1.0


def test_copies_of_a_file_are_one_result(tmp_path: Path) -> None:
    """online-boutique keeps four identical `demo.proto` files and three `health.proto`:
    they took 16 of 60 top-5 places, and all 5 for "grpc health check". A file's copies
    are one hit, one file and one symbol, naming the other places in `why.copies`."""
    proto = (
        'syntax = "proto3";\n\npackage grpc.health.v1;\n\n'
        "// The health check service.\nservice Health {\n"
        "  rpc Check(HealthCheckRequest) returns (HealthCheckResponse);\n}\n\n"
        "message HealthCheckRequest {\n  string service = 1;\n}\n"
    )
    repo = make_git_repo(
        tmp_path / "p",
        {
            "cart/protos/health.proto": proto,
            "checkout/protos/health.proto": proto,
            "shipping/protos/health.proto": proto,
            "cart/health.py": (
                "def check_health(service):\n"
                '    """Answer the grpc health check of a service."""\n'
                "    return 'SERVING'\n"
            ),
        },
    )
    eng, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    with eng:
        eng.index(root)
        found = eng.retrieve("grpc health check service", eng.search_options(k=8))
    protos = [h for h in found.hits if h.path.endswith(".proto")]
    assert len({(h.start_line, h.end_line, h.symbol) for h in protos}) == len(protos)
    first = protos[0]
    copies = sorted({"cart", "checkout", "shipping"} - {first.path.split("/")[0]})
    assert first.why["copies"] == [f"{c}/protos/health.proto" for c in copies]
    assert [f.path.endswith(".proto") for f in found.files].count(True) == 1
    assert "cart/health.py" in {h.path for h in found.hits}
    symbols = [s for s in found.symbols if s.path.endswith(".proto")]
    assert len({s.symbol for s in symbols}) == len(symbols)


def test_the_english_message_catalog_ranks_as_documentation(tmp_path: Path) -> None:
    """excalidraw's `locales/en.json` (UI strings) led two of 25 questions about code:
    it is kept (each message once), weighed as text for people, and its keys are no
    symbols of the symbol view. A JSON file outside a catalog folder is code."""
    repo = make_git_repo(
        tmp_path / "p",
        {
            "src/export.ts": "export function exportToFile(scene: Scene) {\n"
            "  return saveScene(scene);\n}\n",
            "locales/en.json": '{"exportToFile": "Export the drawing to a file"}\n',
            "config/app.json": '{"exportToFile": true}\n',
        },
    )
    eng, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    with eng:
        eng.index(root)
        found = eng.retrieve("export to file", eng.search_options(k=10))
    doc = {h.path: "doc" in h.why["features"] for h in found.hits}
    assert doc == {"src/export.ts": False, "locales/en.json": True, "config/app.json": False}
    assert "locales/en.json" not in {s.path for s in found.symbols}


def test_examples_and_benchmarks_rank_as_documentation(tmp_path: Path) -> None:
    """gson's audit: a benchmark's `Item` class came first for a user's `Item.class`;
    typer's `docs_src/` tutorials filled its top files. Code that shows or measures the
    project is weighed as text for people."""
    files = {
        "shop/cart.py": "def add_item(cart, item):\n    cart.append(item)\n",
        "examples/cart_demo.py": "def add_item_demo(cart, item):\n    add_item(cart, item)\n",
        "benchmarks/bench_cart.py": "def bench_add_item(cart, item):\n    add_item(cart, item)\n",
    }
    repo = make_git_repo(tmp_path / "p", files)
    eng, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    with eng:
        eng.index(root)
        found = eng.retrieve("add item to cart", eng.search_options(k=10))
    doc = {h.path: "doc" in h.why["features"] for h in found.hits}
    assert doc == {
        "shop/cart.py": False,
        "examples/cart_demo.py": True,
        "benchmarks/bench_cart.py": True,
    }
    assert found.files[0].path == "shop/cart.py"


def test_a_large_best_file_brings_its_best_matching_chunks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """File expansion brings FILE_CHUNKS chunks of each best file: the first ones had
    left out zod's `handleOptionalResult`, chunk 400 of the 586 of `schemas.ts`, though
    it outscored the symbol view's 200th. A larger file brings its best by BM25."""
    monkeypatch.setattr(candidates, "FILE_CHUNKS", 3)
    helpers = "".join(f"def helper_{n}(x):\n    return x + {n}\n\n\n" for n in range(6))
    schemas = (
        "def parse_schema(value):\n    return value\n\n\n"
        + helpers
        + "def handle_optional_result(result, value):\n"
        "    if result.issues and value is None:\n        return optional_default(value)\n"
        "    return result\n"
    )
    other = "def optional_default(value):\n    return value\n"
    with _indexed(tmp_path, {"schemas.py": schemas, "other.py": other}) as eng:
        options = eng.search_options(k=20, candidates=1, view="symbols")
        found = eng.retrieve("parse_schema optional result issues", options)
    assert "handle_optional_result" in [item.symbol for item in found.symbols]


def test_a_frame_in_a_packages_build_output_is_its_source(tmp_path: Path) -> None:
    """hono's audit: `at HonoRequest.param (…/node_modules/hono/dist/request.js:55:52)`
    is hono's `src/request.ts`, yet no frame feature came of it. A file under
    `node_modules` maps to its source when the repository is that package; another
    package's frame (express's `lib/router/index.js`) names none of its files."""
    files = {
        "src/request.ts": "export class HonoRequest {\n  param(key: string) {\n"
        "    return this.params[key]\n  }\n}\n",
        "src/router/index.ts": "export function handle(req: Request) {\n  return req\n}\n",
    }
    repo = make_git_repo(tmp_path / "hono", files)
    eng, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    query = (
        "TypeError: Cannot read properties of undefined\n"
        "    at HonoRequest.param (file:///app/node_modules/hono/dist/cjs/request.js:55:52)\n"
        "    at handle (/srv/node_modules/express/lib/router/index.js:95:5)\n"
    )
    with eng:
        eng.index(root)
        result = eng.retrieve(query, eng.search_options(k=5, collect=True))
    assert result.candidates is not None
    framed = {c["symbol"] for c in result.candidates if c["features"].get("frame")}
    assert framed == {"HonoRequest.param"}
    assert not any(
        c["features"].get("path") for c in result.candidates if c["path"] == "src/router/index.ts"
    )


def test_any_k_up_to_the_mcp_limit_ranks_the_same_pool() -> None:
    """pylint's audit: the pool was max(candidates, 3 × k), 100 by default, so `-k 20` and
    `-k 50` ranked different candidates (the top 5 files differed in 10 of 25 issues)."""
    from codecompass.mcp_server import MAX_TOP_K
    from codecompass.settings import SearchSettings

    assert SearchSettings().candidates == 3 * MAX_TOP_K == 150


def test_the_special_methods_a_querys_code_runs_are_named_through_their_class(
    tmp_path: Path,
) -> None:
    """`q == 1` runs `__eq__` of `q`'s class, which the issue never names. A class
    without its own method runs its base's; another class's `__eq__` is not marked, nor
    any special method the code does not run (`__mul__`, `__repr__`), nor the
    constructor the example calls."""
    base = (
        "class Base:\n    def __eq__(self, other):\n        return self.value == other\n\n"
        "    def __mul__(self, other):\n        return self.value * other\n"
    )
    units = (
        "from base import Base\n\n\nclass Quantity(Base):\n"
        "    def __init__(self, value):\n        self.value = value\n\n"
        "    def __repr__(self):\n        return 'Quantity'\n"
    )
    other = "class Other:\n    def __eq__(self, other):\n        return True\n"
    files = {"base.py": base, "units.py": units, "other.py": other}
    with _indexed(tmp_path, files) as eng:
        query = "Quantity is equal to anything\n\n```\nq = Quantity(3)\nq == 1\n```"
        named, result = _named(eng, query)
        assert named == {"Quantity": 1.0, "Base.__eq__": 0.7}
        # `why` says for which named class it runs, in the hits and the symbol view.
        assert "Base.__eq__" in [item.symbol for item in result.symbols]
        for item in [*result.hits, *result.symbols]:
            expected = "p/units.py#Quantity" if item.symbol == "Base.__eq__" else None
            assert item.why.get("special_of") == expected, item.symbol
        # Without code that runs them, no special method is marked.
        named, _ = _named(eng, "`Quantity` is equal to anything")
        assert named == {"Quantity": 1.0}


def test_a_nested_function_named_lends_its_naming_to_the_chunk_holding_it(
    tmp_path: Path,
) -> None:
    """axios's `mergeConfig.getMergedValue` is a symbol but has no chunk of its own
    (search keeps a nested function in its outer one), so naming it marked nothing; a
    React component's `handleSubmit` the same. The chunk holding its first line gets
    the naming, and the symbol view shows it as itself right after its holder (Django's
    `Command.handle.get_objects` could never be a result)."""
    merge = (
        "export default function mergeConfig(config1, config2) {\n"
        "  const config = {}\n\n"
        "  function getMergedValue(target, source) {\n"
        "    return Object.assign({}, target, source)\n"
        "  }\n\n"
        "  return getMergedValue(config1, config2)\n"
        "}\n"
    )
    other = "export function mergeDeep(a, b) {\n  return { ...a, ...b }\n}\n"
    with _indexed(tmp_path, {"lib/mergeConfig.js": merge, "lib/deep.js": other}) as eng:
        named, result = _named(eng, "getMergedValue drops the prototype")
        assert named == {"mergeConfig": 1.0}
        holder, first = result.symbols[:2]
        assert (first.symbol, first.kind, first.start_line, first.end_line) == (
            "mergeConfig.getMergedValue",
            "function",
            4,
            6,
        )
        assert first.why["nested_in"] == "mergeConfig"
        assert first.why["best_chunk"] == holder.why["best_chunk"]
        assert (holder.symbol, first.score) == ("mergeConfig", holder.score)
        # Not named, it stays inside its holder.
        _, plain = _named(eng, "merge two configs into one")
        assert "mergeConfig.getMergedValue" not in [s.symbol for s in plain.symbols]
    # fastify's audit: in a long holder, the nested function's evidence is the holder's
    # chunk holding it, not the holder's best chunk (`fastify.addHook` was shown at lines
    # 581-608, which are `fastify.ready`'s).
    filler = "".join(f"  config.merge_step_{n} = mergeDeep(config1, config2)\n" for n in range(150))
    head = "  // normalize the incoming headers before anything is merged\n"
    long = merge.replace("  const config = {}\n", "  const config = {}\n" + head + filler)
    start = 4 + 151
    with _indexed(tmp_path / "long", {"lib/mergeConfig.js": long, "lib/deep.js": other}) as eng:
        query = (
            "mergeConfig: normalize the incoming headers before anything is merged, "
            "in getMergedValue"
        )
        _, result = _named(eng, query)
        holder = next(s for s in result.symbols if s.symbol == "mergeConfig")
        assert holder.why["best_chunk_lines"][0] == 1
        inner = next(s for s in result.symbols if s.symbol == "mergeConfig.getMergedValue")
        lines = inner.why.get("best_chunk_lines", [inner.start_line, inner.end_line])
        assert (inner.start_line, inner.end_line) == (start, start + 2)
        assert lines[0] <= start <= lines[1], lines


def test_a_frames_line_tells_apart_the_functions_of_its_name(tmp_path: Path) -> None:
    """scikit-learn's audit: a frame `line 6, in fit` gave the frame's full weight to
    every `fit` of the file; the one not holding the line now weighs half."""
    models = (
        "class Plain:\n"
        "    def fit(self, X):\n"
        "        return self\n\n\n"
        "class Tuned:\n"
        "    def fit(self, X):\n"
        "        raise ValueError(X)\n"
    )
    with _indexed(tmp_path, {"pkg/models.py": models}) as eng:
        trace = (
            "Traceback (most recent call last):\n"
            '  File "/venv/site-packages/pkg/models.py", line 8, in fit\n'
            "ValueError: bad"
        )
        assert frame_values(eng, trace) == {"Tuned.fit": 1.0, "Plain.fit": 0.5}
        # A line that no namesake holds (a traceback of other code) marks them all alike.
        drifted = trace.replace("line 8", "line 40")
        assert frame_values(eng, drifted) == {"Tuned.fit": 1.0, "Plain.fit": 1.0}


def test_a_constructor_that_only_stores_its_arguments_is_short() -> None:
    """scikit-learn's estimators' `__init__` store their parameters and nothing else, yet
    their parameters' words filled the function view (an outside audit)."""
    ridge = (
        "    def __init__(\n        self,\n        alpha=1.0,\n        *,\n        tol=1e-4,\n"
        "    ):\n        super().__init__(\n            alpha=alpha,\n            tol=tol,\n"
        "        )\n"
    )
    stored = (
        '    def __init__(self, alpha, tol) -> None:\n        """Doc."""\n'
        "        # the parameters\n        self.alpha = alpha\n        self.tol = tol\n"
    )
    assert _stores_arguments("Ridge.__init__", ridge)
    assert _stores_arguments("Lasso.__init__", stored)
    computed = stored.replace("self.tol = tol", "self.tol = float(tol)")
    assert not _stores_arguments("Lasso.__init__", computed)
    assert not _stores_arguments("Lasso.fit", stored)
    assert not _stores_arguments("A.__init__", "    def __init__(self):\n        pass\n")


@pytest.mark.slow
def test_a_lone_surrogate_in_a_query_is_read_as_a_replacement_character(tmp_path: Path) -> None:
    """serde_json's audit: a task whose JSON held `"\\ud83c"` (half an emoji) failed
    `eval` as an unexpected error, in the real model's tokenizer; an MCP argument can hold
    one as well."""
    from codecompass.decoding import well_formed
    from codecompass.embedders.onnx import OnnxEmbedder

    assert well_formed("a \ud83c b \ud83c\udf00") == "a \ufffd b \U0001f300"
    repo = make_git_repo(tmp_path / "proj", {"app/auth.py": AUTH})
    eng, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=OnnxEmbedder())
    eng.index(root)
    hits = eng.search("verify_token fails on \ud83c tokens", k=1)
    assert hits[0].symbol == "verify_token"


def test_a_name_only_a_frame_writes_weighs_half_elsewhere(tmp_path: Path) -> None:
    """gson's audit: the frame `JsonTreeReader.nextLong(…)` gave its whole naming to
    `JsonReader.nextLong` of another file, which came first; the frame names its own."""
    repo = make_git_repo(
        tmp_path / "proj",
        {
            "app/reader.py": "def next_long(text):\n    return int(text)\n",
            "app/stream.py": "def next_long(text):\n    return int(text, 10)\n",
            "app/bundle.py": "def run(text):\n    return text\n",
        },
    )
    eng, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    eng.index(root)
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/srv/site-packages/app/reader.py", line 2, in next_long\n'
        "ValueError: invalid literal for int() with base 10: '12 pcs'"
    )

    def stream_naming(query: str) -> float:
        hit = next(h for h in eng.search(query, k=5) if h.path == "app/stream.py")
        return float(hit.why["features"]["name"]["value"])

    assert stream_naming(trace) == pytest.approx(0.5 / (1 + math.log(2)), abs=1e-4)
    assert stream_naming(f"next_long fails on '12 pcs'\n{trace}") == pytest.approx(
        1 / (1 + math.log(2)), abs=1e-4
    )
    # A frame whose file has no function of its name (a bundle's) names it elsewhere.
    bundled = trace.replace("app/reader.py", "app/bundle.py")
    assert stream_naming(bundled) == pytest.approx(1 / (1 + math.log(2)), abs=1e-4)


def test_a_functions_best_chunk_inside_a_nested_function_shows_that_function(
    tmp_path: Path,
) -> None:
    """fastify's audit: the 800-line `fastify` factory led the symbol view for a quoted
    400 response, its best chunk inside the nested `onBadUrl` that writes it, and
    `fastify.onBadUrl` was never shown. It now follows its holder, at its score."""
    filler = "".join(f"  server.step_{n} = prepare(options, {n})\n" for n in range(120))
    handler = "".join(
        [
            "  function onBadUrl (path, req, res) {\n",
            '    const body = `{"error":"Bad Request","message":"\'${path}\' is not a valid',
            ' url component"}`\n',
            *(
                f"    res.setHeader('x-bad-url-{n}', String(body.length + {n}))\n"
                for n in range(14)
            ),
            "    res.writeHead(400, { 'Content-Type': 'application/json' })\n",
            "    res.end(body)\n",
            "  }\n",
        ]
    )
    head = "function createServer (options) {\n  const server = {}\n"
    factory = f"{head}{filler}{handler}{filler}  return server\n}}\n"
    other = "export function prepare(options, n) {\n  return { ...options, n }\n}\n"
    with _indexed(tmp_path, {"lib/server.js": factory, "lib/prepare.js": other}) as eng:
        query = "the 400 body 'x' is not a valid url component is no valid JSON"
        result = eng.retrieve(query, eng.search_options(k=10))
        names = [s.symbol for s in result.symbols]
        holder = names.index("createServer")
        assert names[holder + 1] == "createServer.onBadUrl"
        inner = result.symbols[holder + 1]
        assert inner.why["nested_in"] == "createServer"
        assert inner.score == result.symbols[holder].score
        assert (inner.start_line, inner.end_line) == (123, 141)
        # Evidence mostly outside it (the holder's setup lines) shows the holder alone.
        plain = eng.retrieve("server step prepare options", eng.search_options(k=10))
        assert "createServer.onBadUrl" not in [s.symbol for s in plain.symbols]


def test_a_module_wrapping_only_classes_is_no_symbol_of_the_view(tmp_path: Path) -> None:
    """rack's audit: each file is `module Rack` around one class, and that wrapper (a
    namespace, which C#'s are not even indexed as) held the class's doc comment and came
    second in the symbol view. A module with functions of its own stays."""
    doc = "".join(f"  # Serves static files from the public folder, rule {n}.\n" for n in range(12))
    static = (
        f"module Shop\n{doc}  class Static\n    def call(env)\n      serve(env)\n    end\n"
        "  end\nend\n"
    )
    helpers = (
        "module Helpers\n  # Serves static files' names as slugs.\n"
        "  def self.slug(name)\n    name.downcase\n  end\nend\n"
    )
    with _indexed(tmp_path, {"lib/shop/static.rb": static, "lib/helpers.rb": helpers}) as eng:
        result = eng.retrieve(
            "serves static files from the public folder", eng.search_options(k=10)
        )
        shown = {(s.path, s.symbol) for s in result.symbols}
        assert ("lib/shop/static.rb", "Shop.Static") in shown
        assert ("lib/shop/static.rb", "Shop") not in shown
        # The wrapper's chunk is still a hit: only the symbol view leaves it out.
        assert "Shop" in [h.symbol for h in result.hits]
        assert ("lib/helpers.rb", "Helpers") in shown
