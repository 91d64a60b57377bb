"""Shared fixtures: a tiny deterministic embedder for pipeline logic and small repos."""

from __future__ import annotations

import subprocess
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from codecompass.protocols import Vectors
from codecompass.tokens import code_tokens
from tests.pg import Cluster, skip_or_fail
from tests.pg import cluster as pg_cluster_of_tests
from tests.pg import unavailable as pg_unavailable


class TinyEmbedder:
    """Bag of hashed code tokens: deterministic, instant, good enough for logic tests.

    Records every text it embeds so tests can assert on what was (not) re-embedded."""

    model_id = "test:tiny-hash-64"
    dim = 64
    max_tokens = 256

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        self.embedded.extend(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in code_tokens(text):
                out[row, zlib.crc32(token.encode()) % self.dim] += 1.0
            norm = float(np.linalg.norm(out[row]))
            out[row] = out[row] / norm if norm else out[row]
            if not norm:
                out[row, 0] = 1.0
        return out

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(code_tokens(t)) for t in texts]


@pytest.fixture
def tiny_embedder() -> TinyEmbedder:
    return TinyEmbedder()


def git(root: Path, *args: str) -> str:
    out = subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True
    )
    return out.stdout


def make_git_repo(root: Path, files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "user.name", "Test")
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    return root


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    """One throwaway PostgreSQL cluster for the whole run (see tests/pg.py)."""
    reason = pg_unavailable()
    if reason is not None:
        skip_or_fail(reason)
    with pg_cluster_of_tests() as started:
        yield started
