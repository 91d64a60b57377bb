"""Readers during an index run see the tree old or new, never a mix (issue 14, defect 9:
search during `index --full` of a changed tree returned deleted files and wrong line
ranges for up to two minutes)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from codecompass.engine import Engine
from codecompass.schemas import Hit
from codecompass.settings import load_settings
from tests.conftest import git, make_git_repo

FILES = 80


def version_a(i: int) -> str:
    return "\n\n".join(
        f"def settle_invoice_{i}_{j}(ledger, amount={j}):\n"
        f'    """Settle invoice {i}-{j} against the ledger."""\n'
        f"    ledger.post({i} * amount)\n"
        f"    return ledger.balance()\n"
        for j in range(3)
    )


def version_b(i: int) -> str:
    # Two new functions at the top shift every line of the old ones.
    head = "\n\n".join(
        f"def audit_invoice_{i}_{j}(ledger):\n    return ledger.audit({i}, {j})\n" for j in range(2)
    )
    return head + "\n\n" + version_a(i).replace("ledger.post(", "ledger.post_twice(")


def tree(version: str) -> dict[str, str]:
    """Version a: files 0..79. Version b: the first quarter as it was, the next half
    changed, the last quarter deleted, and a quarter more new files."""
    if version == "a":
        return {f"billing/m{i}.py": version_a(i) for i in range(FILES)}
    same, changed, new = (
        range(FILES // 4),
        range(FILES // 4, 3 * FILES // 4),
        range(FILES, 5 * FILES // 4),
    )
    files = {f"billing/m{i}.py": version_a(i) for i in same}
    files |= {f"billing/m{i}.py": version_b(i) for i in [*changed, *new]}
    return files


def versions_showing(hit: Hit, trees: dict[str, dict[str, str]]) -> set[str]:
    """The versions of the tree in which this hit's file holds its text at its lines."""
    shown = set()
    for name, files in trees.items():
        text = files.get(hit.path)
        if text is None:
            continue
        lines = text.split("\n")[hit.start_line - 1 : hit.end_line]
        if "\n".join(lines).strip() == hit.snippet.strip():
            shown.add(name)
    return shown


def test_searches_during_a_full_reindex_see_the_old_or_the_new_tree(tmp_path: Path) -> None:
    trees = {"a": tree("a"), "b": tree("b")}
    repo = make_git_repo(tmp_path / "shop", trees["a"])
    data = tmp_path / "d"
    with Engine(load_settings(data)) as engine:
        engine.index(repo)
    shutil.rmtree(repo / "billing")
    for path, text in trees["b"].items():
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")

    run = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "codecompass",
            "index",
            str(repo),
            "--full",
            "--data-dir",
            str(data),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    queries = ["settle invoice ledger", "audit invoice", "post amount to the ledger"]
    seen: list[str] = []  # the version each answer showed
    during = n = 0
    with Engine(load_settings(data)) as reader:
        # At least 200 searches, and on until the run has ended.
        while n < 200 or run.poll() is None:
            running = run.poll() is None
            hits = reader.search(queries[n % len(queries)], k=10, detail="full")
            assert hits, "a search during the run found nothing"
            common = set(trees)
            for hit in hits:
                shown = versions_showing(hit, trees)
                assert shown, f"{hit.path}:{hit.start_line}-{hit.end_line} is in neither tree"
                common &= shown
            assert common, f"answer {n} mixes the old and the new tree"
            seen.append("".join(sorted(common)))
            during += running
            n += 1
    _, err = run.communicate(timeout=300)
    assert run.returncode == 0, err.decode()
    with Engine(load_settings(data)) as reader:
        hits = reader.search("audit invoice", k=10, detail="full")
        assert {"b"} == set.intersection(*(versions_showing(h, trees) for h in hits))
        seen.append("b")
    assert during >= 20, f"only {during} searches ran while the index was running"
    # Before the run's commit the old tree, after it the new one, and never back.
    first_new = next((n for n, v in enumerate(seen) if v == "b"), len(seen))
    assert all("a" in v for v in seen[:first_new])
    assert all("b" in v for v in seen[first_new:])
