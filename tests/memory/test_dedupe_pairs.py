"""The near-duplicate threshold on hand-written memory pairs (tests/fixtures/memory/
pairs.json): 20 paraphrases of one fact, 20 related but different facts. At
`MemorySettings().near_duplicate`, embedding the text the bank compares
(`dedupe_text`) with the shipped model and deciding with `similarity.same_fact`, the
counts are the ones benchmarks/memory_dedupe.py measured; it prints every cosine."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from codecompass.embedders import create_embedder
from codecompass.memory.similarity import numbers, numbers_conflict, same_fact
from codecompass.settings import EmbedderSettings, MemorySettings

PAIRS = Path(__file__).resolve().parents[1] / "fixtures" / "memory" / "pairs.json"

# Measured with benchmarks/memory_dedupe.py (stripped text, guard) at threshold 0.70:
# the two paraphrase/related cosine ranges overlap, so no threshold gets every pair.
EXPECTED_MERGED = 19  # of 20 paraphrases (split: CRA -> Vite, cosine 0.55)
EXPECTED_KEPT = 18  # of 20 related (merged: CORS causes 0.79, pydantic in/out 0.77)


def _cosines(pairs: list[dict[str, str]]) -> list[float]:
    from codecompass.memory.bank import dedupe_text  # the text the bank compares

    e = EmbedderSettings()
    embedder = create_embedder(
        e.provider,
        e.model or None,
        base_url=e.base_url or None,
        api_key_env=e.api_key_env or None,
        dim=e.dim or None,
    )
    texts = [dedupe_text(p[side]) for p in pairs for side in ("a", "b")]
    vectors = np.asarray(embedder.embed(texts), dtype=np.float64)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return [float(vectors[2 * i] @ vectors[2 * i + 1]) for i in range(len(pairs))]


@pytest.mark.slow
def test_counts_at_the_configured_threshold() -> None:
    data = json.loads(PAIRS.read_text(encoding="utf-8"))
    para, rel = data["paraphrases"], data["related"]
    assert len(para) == len(rel) == 20
    threshold = MemorySettings().near_duplicate
    cosines = _cosines(para + rel)
    same = [
        same_fact(p["a"], p["b"], c, threshold) for p, c in zip(para + rel, cosines, strict=True)
    ]
    merged = sum(same[: len(para)])
    kept = len(rel) - sum(same[len(para) :])
    wrong = [
        f"{'paraphrase split' if i < len(para) else 'related merged'} {c:.4f}: {p['a']!r}"
        for i, (p, c, s) in enumerate(zip(para + rel, cosines, same, strict=True))
        if s != (i < len(para))
    ]
    assert (merged, kept) == (EXPECTED_MERGED, EXPECTED_KEPT), (
        f"near_duplicate {threshold}: {merged}/20 paraphrases merged, {kept}/20 related "
        "kept apart; wrong: " + "; ".join(wrong)
    )


def test_numbers_are_canonical() -> None:
    assert numbers("Python 3.12, SQLAlchemy 2, PostgreSQL 16") == {"3.12", "2", "16"}
    assert numbers("SQLAlchemy 2.x and Postgres 16.") == {"2", "16"}
    assert numbers("1,000 requests, RS256, eu-west-1, 08") == {"1000", "256", "1", "8"}
    assert numbers("no digits here") == frozenset()


def test_numbers_conflict_only_when_both_sides_differ() -> None:
    assert numbers_conflict("CI runs on Node 18", "CI runs on Node 20")
    assert numbers_conflict("access tokens live 15 minutes", "refresh tokens live 30 days")
    assert not numbers_conflict("Python 3.12 and Postgres 16", "Postgres 16 backend")
    assert not numbers_conflict("limit 1,000 per minute", "limit 1000 per minute")
    assert not numbers_conflict("no numbers", "none here either")


def test_same_fact_needs_the_threshold_and_no_conflict() -> None:
    assert same_fact("Node 18 in CI", "CI uses Node 18", 0.9, 0.7)
    assert not same_fact("Node 18 in CI", "CI uses Node 18", 0.69, 0.7)
    assert not same_fact("Node 18 in CI", "Node 20 in CI", 0.99, 0.7)
