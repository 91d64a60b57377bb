"""Incremental linking: a changed file's edges are rebuilt, files that depended on what
it exposes are resolved again, and nothing else is touched."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from codecompass.engine import Engine
from codecompass.graph.link import link
from codecompass.models import EdgeQuery
from tests.conftest import TinyEmbedder, make_git_repo
from tests.graph.helpers import LINK_TYPES, add_fixture, edges, workspace
from tests.peek import peek, tamper

P = "shop/shop"


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_body_edit_relinks_only_that_file(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        repo = add_fixture(engine, tmp_path, "python", "shop")
        before = edges(engine)
        edit(repo / "shop/models.py", "return 0.0", "return 1.0")
        stats = engine.index(repo, name="shop")
        assert (stats.graph["changed"], stats.graph["dependents"], stats.graph["resolved"]) == (
            1,
            0,
            1,
        )
        assert edges(engine) == before


def test_importance_is_computed_again_only_when_the_graph_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # PageRank over a large graph took 1.6 s of numpy's 5.5 s one-line change, and a
    # change inside a body leaves every node and edge it reads as it was.
    import codecompass.graph.pagerank as pagerank_module

    runs: list[int] = []
    real = pagerank_module.pagerank

    def counted(*args: Any) -> Any:
        runs.append(args[0])
        return real(*args)

    monkeypatch.setattr(pagerank_module, "pagerank", counted)
    with workspace(tmp_path) as engine:
        repo = add_fixture(engine, tmp_path, "python", "shop")
        query = "SELECT id, importance FROM graph_nodes ORDER BY id"
        first = peek(engine, query)
        assert len(runs) == 1 and runs[0] == len(first) > 10
        edit(repo / "shop/models.py", "return 0.0", "return 1.0")
        assert engine.index(repo, name="shop").graph["changed"] == 1
        assert len(runs) == 1 and peek(engine, query) == first
        edit(repo / "shop/models.py", "def save(self)", "def persist(self)")
        engine.index(repo, name="shop")
        assert len(runs) == 2
        renamed = dict(peek(engine, query))
        assert f"{P}/models.py#Entity.persist" in renamed
        assert f"{P}/models.py#Entity.save" not in renamed
        # Back to the first graph: the same importance, computed again (the stored one
        # came from the graph with `persist`).
        edit(repo / "shop/models.py", "def persist(self)", "def save(self)")
        engine.index(repo, name="shop")
        assert len(runs) == 3 and peek(engine, query) == first


def test_a_vanished_method_unresolves_its_callers(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        repo = add_fixture(engine, tmp_path, "python", "shop")
        edit(repo / "shop/models.py", "def save(self)", "def persist(self)")
        stats = engine.index(repo, name="shop")
        # __init__.py, repository.py and service.py looked into models.py.
        assert stats.graph["dependents"] == 3
        found = edges(engine, ("calls",))
        assert not any(e[1] == f"{P}/models.py#Entity.save" for e in found)
        assert (f"{P}/service.py#OrderService.place", "?order.save", "calls", 0.0, 17) in found
        assert (f"{P}/repository.py#Repository.add", "?item.save", "calls", 0.0, 8) in found
        edit(repo / "shop/models.py", "def persist(self)", "def save(self)")
        engine.index(repo, name="shop")
        found = edges(engine, ("calls",))
        assert (
            f"{P}/service.py#OrderService.place",
            f"{P}/models.py#Entity.save",
            "calls",
            0.8,
            17,
        ) in found


def test_a_removed_file_leaves_no_edge_into_it(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        repo = add_fixture(engine, tmp_path, "python", "shop")
        (repo / "shop/util.py").unlink()
        stats = engine.index(repo, name="shop")
        assert stats.graph["removed"] == 1
        rows = peek(
            engine,
            "SELECT count(*) FROM edges WHERE target LIKE 'shop/shop/util.py%' "
            "OR source LIKE 'shop/shop/util.py%'",
        )
        assert rows == [(0,)]
        found = edges(engine)
        assert (f"{P}/service.py#OrderService.place", "?render", "calls", 0.0, 20) in found
        assert (f"{P}/service.py", "?.util.render", "imports", 1.0, 7) in found
        assert (
            f"{P}/service.py#OrderService._notify",
            "?recipient.notify",
            "calls",
            0.0,
            27,
        ) in found


def test_a_name_another_repository_gains_relinks_nothing_here(tmp_path: Path) -> None:
    """Look-ups of a name are per repository: `Sms.notify` added to one copy of the shop
    splits that copy's guess only; the other copy's `_notify` is not resolved again."""
    with workspace(tmp_path) as engine:
        repo = add_fixture(engine, tmp_path, "python", "shop")
        add_fixture(engine, tmp_path, "python", "other")
        before = {e for e in edges(engine, ("calls",)) if e[0].startswith("other/")}
        (repo / "shop/sms.py").write_text(
            "class Sms:\n    def notify(self) -> None:\n        pass\n", encoding="utf-8"
        )
        stats = engine.index(repo, name="shop")
        assert (stats.graph["changed"], stats.graph["dependents"]) == (1, 1)
        assert {e for e in edges(engine, ("calls",)) if e[0].startswith("other/")} == before


def test_name_look_ups_recorded_before_they_named_a_repository_still_relink(
    tmp_path: Path,
) -> None:
    """An index written before look-ups were recorded per repository holds bare names:
    they still match, so nothing that should be resolved again is missed."""
    with workspace(tmp_path) as engine:
        repo = add_fixture(engine, tmp_path, "python", "shop")
        add_fixture(engine, tmp_path, "python", "other")
        scoped = peek(engine, "SELECT DISTINCT value FROM graph_deps WHERE kind = 'name'")
        assert scoped and all("\x00" in value for (value,) in scoped)
        for (value,) in scoped:
            bare = value.split("\x00", 1)[1]
            tamper(engine, "UPDATE graph_deps SET value = ? WHERE value = ?", (bare, value))
        (repo / "shop/sms.py").write_text(
            "class Sms:\n    def notify(self) -> None:\n        pass\n", encoding="utf-8"
        )
        stats = engine.index(repo, name="shop")
        assert (stats.graph["changed"], stats.graph["dependents"]) == (1, 2)


def test_facts_of_another_version_are_read_again_and_every_file_resolved(
    tmp_path: Path,
) -> None:
    """An upgrade that extracts or resolves differently bumps FACTS_VERSION: the next
    ordinary run reads every file's facts again and rebuilds its edges, though no file
    changed (here a lost edge comes back)."""
    with workspace(tmp_path) as engine:
        repo = add_fixture(engine, tmp_path, "python", "shop")
        before = edges(engine)
        files = peek(engine, "SELECT count(*) FROM graph_facts")[0][0]
        tamper(engine, "UPDATE graph_facts SET version = version - 1")
        tamper(engine, "DELETE FROM edges WHERE rowid = (SELECT min(rowid) FROM edges "
               "WHERE type = 'calls')")  # fmt: skip
        assert edges(engine) != before
        stats = engine.index(repo, name="shop")
        assert stats.unchanged == files
        assert (stats.graph["extracted"], stats.graph["resolved"]) == (files, files)
        assert edges(engine) == before


def test_a_new_candidate_splits_an_ambiguous_name_further(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        repo = add_fixture(engine, tmp_path, "python", "shop")
        (repo / "shop/sms.py").write_text(
            "class Sms:\n    def notify(self) -> None:\n        pass\n", encoding="utf-8"
        )
        stats = engine.index(repo, name="shop")
        assert stats.graph["dependents"] == 1
        notify = {e for e in edges(engine, ("calls",)) if e[0].endswith("_notify")}
        assert notify == {
            (
                f"{P}/service.py#OrderService._notify",
                f"{P}/util.py#Mailer.notify",
                "calls",
                0.2667,
                27,
            ),
            (
                f"{P}/service.py#OrderService._notify",
                f"{P}/util.py#Pager.notify",
                "calls",
                0.2667,
                27,
            ),
            (f"{P}/service.py#OrderService._notify", f"{P}/sms.py#Sms.notify", "calls", 0.2667, 27),
        }


def test_link_repairs_facts_a_crash_lost(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "python", "shop")
        before = edges(engine)
        tamper(engine, "DELETE FROM graph_facts WHERE path = 'shop/service.py'")
        stats = link(engine.backend)
        assert (stats.extracted, stats.changed) == (1, 1)
        assert edges(engine) == before
        assert link(engine.backend).changed == 0


def test_edges_are_indexed_in_both_directions(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "go", "go")
        indexed = {
            tuple(r[2] for r in peek(engine, f"PRAGMA index_info({name})"))
            for (name,) in peek(
                engine, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'edges'"
            )
        }
        assert {("source", "type"), ("target", "type"), ("repo", "path")} <= indexed
        plan = " ".join(
            str(r[3])
            for r in peek(
                engine,
                "EXPLAIN QUERY PLAN SELECT * FROM edges WHERE target = ? AND type = 'calls'",
                ("go/main.go#helper",),
            )
        )
        assert "edges_in" in plan


def test_a_run_killed_in_the_link_stage_is_finished_by_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 14, defect 1: the rerun found nothing to do and the keyword edges and the
    # importance rows stayed missing until `--full`.
    import codecompass.graph.link as link_module

    with workspace(tmp_path / "clean") as clean:
        add_fixture(clean, tmp_path / "clean", "python", "shop")
        expected = edges(clean, ("keyword", *LINK_TYPES))
        expected_importance = peek(clean, "SELECT id, importance FROM graph_nodes ORDER BY id")
    assert any(e[2] == "keyword" for e in expected) and expected_importance

    def killed(backend: object) -> object:
        raise KeyboardInterrupt  # what a kill looks like between two steps

    with workspace(tmp_path / "killed") as engine:
        monkeypatch.setattr(link_module, "importance_update", killed)
        with pytest.raises(KeyboardInterrupt):
            add_fixture(engine, tmp_path / "killed", "python", "shop")
        monkeypatch.undo()
        stats = engine.index(tmp_path / "killed" / "shop", name="shop")
        assert stats.graph["changed"] > 0
        assert edges(engine, ("keyword", *LINK_TYPES)) == expected
        assert peek(engine, "SELECT id, importance FROM graph_nodes ORDER BY id") == (
            expected_importance
        )


def test_the_first_index_links_similar_code_once_it_has_vectors(tmp_path: Path) -> None:
    """An index run links before it embeds, and similarity edges are made from vectors:
    a first index had none (black, attrs, pylint, sphinx: 0), and a changed file's new
    text never had a vector when its edges were rebuilt."""
    total = (
        "def {name}(rows, total, discount, currency):\n    for row in rows:\n"
        "        price = row.price * row.quantity * (1 - discount)\n"
        "        total += convert(price, row.currency, currency)\n"
        "    return round(total, 2)\n"
    )
    greet = (
        "def {name}(person, greeting, punctuation, shout):\n"
        "    words = [greeting.title(), person.first_name, person.last_name]\n"
        "    message = ' '.join(words) + punctuation\n"
        "    if person.nickname and greeting.lower() != 'dear':\n"
        "        message = message.replace(person.first_name, person.nickname)\n"
        "    return message.upper() if shout else message\n"
    )
    files = {
        "a.py": total.format(name="sum_a"),
        "b.py": total.format(name="sum_b"),
        "c.py": greet.format(name="greet"),
    }
    repo = make_git_repo(tmp_path / "p", files)
    engine, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())

    def similar() -> set[tuple[str, str]]:
        found = engine.backend.edges.edges(EdgeQuery(types=["similar"]))
        return {(e.source, e.target) for e in found}

    with engine:
        stats = engine.index(root)
        assert similar() == {("p/a.py#sum_a", "p/b.py#sum_b"), ("p/b.py#sum_b", "p/a.py#sum_a")}
        # The run's count holds them: a first index writes each edge once.
        assert stats.graph["edges_written"] == len(engine.backend.edges.edges(EdgeQuery()))
        # b.py now greets: its own edges are rebuilt from its new text's vector.
        (repo / "b.py").write_text(greet.format(name="sum_b"), encoding="utf-8")
        engine.index(root)
        assert ("p/b.py#sum_b", "p/a.py#sum_a") not in similar()
        assert ("p/b.py#sum_b", "p/c.py#greet") in similar()


def test_look_alikes_in_one_file_leave_room_for_a_neighbour_in_another(tmp_path: Path) -> None:
    """The top neighbours were picked among the best 19 of the workspace: a file of 20
    near copies (sympy's assumption handlers) had no edge to the copy in another file."""
    body = (
        "(rows, total, discount, currency):\n    for row in rows:\n"
        "        price = row.price * row.quantity * (1 - discount)\n"
        "        total += convert(price, row.currency, currency)\n"
        "    return round(total, 2)\n"
    )
    many = "".join(f"def total_{n}{body}\n\n" for n in range(20))
    repo = make_git_repo(tmp_path / "p", {"many.py": many, "one.py": f"def total_x{body}"})
    engine, root = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    with engine:
        engine.index(root)
        found = engine.backend.edges.edges(EdgeQuery(types=["similar"]))
    targets = {e.source: e.target for e in found if e.source.startswith("p/many.py#")}
    assert targets == {f"p/many.py#total_{n}": "p/one.py#total_x" for n in range(20)}
