"""A process that searches runs numpy's BLAS on one thread from then on, whichever
thread searched (OpenBLAS keeps idle workers spinning, which slows the next query's
embedding; see codecompass/blas.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import make_git_repo

SCRIPT = """
import json, sys, threading
from pathlib import Path
from threadpoolctl import ThreadpoolController
from codecompass.engine import Engine
from tests.conftest import TinyEmbedder

def blas_threads():
    return [i["num_threads"] for i in ThreadpoolController().select(user_api="blas").info()]

if sys.argv[2] == "main":
    ThreadpoolController().limit(limits=2, user_api="blas")
seen = {"before": blas_threads()}
eng, root = Engine.for_repo(Path(sys.argv[1]), data_dir=Path(sys.argv[1]).parent / "data",
                            embedder=TinyEmbedder())
eng.index(root)
seen["after indexing"] = blas_threads()
found = []
def search():
    found.extend(h.symbol for h in eng.search("alpha gamma"))
if sys.argv[2] == "main":
    search()
else:
    worker = threading.Thread(target=search)
    worker.start()
    worker.join()
seen["after a search"] = blas_threads()
seen["found"] = found
print(json.dumps(seen))
"""


@pytest.mark.parametrize("thread", ["main", "worker"])
def test_a_search_leaves_blas_on_one_thread(tmp_path: Path, thread: str) -> None:
    repo = make_git_repo(tmp_path / "p", {"a.py": "def alpha():\n    return 'gamma'\n"})
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(repo), thread],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parent.parent,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    libraries = len(seen["before"])
    assert libraries >= 1, "numpy has no BLAS that threadpoolctl can see"
    if thread == "main":
        assert seen["before"] == [2] * libraries
    assert seen["after indexing"] == seen["before"]
    assert seen["after a search"] == [1] * libraries
    assert seen["found"] == ["alpha"]
