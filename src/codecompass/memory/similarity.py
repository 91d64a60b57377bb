"""When two memories are the same fact: cosine at or above the threshold, unless their
numbers disagree.

The shipped embedder (all-MiniLM-L6-v2) barely sees digits: "the frontend builds run
on Node 18 in CI" and "... on Node 20 in CI" score 0.94, "free-plan keys are limited to
100 requests per minute" and "paid-plan keys ... 1000 requests per minute" 0.93, "access
tokens expire after 15 minutes" and "refresh tokens expire after 30 days" 0.82, while
real paraphrases of one fact score 0.63-0.96 (median 0.85). No cosine threshold then
separates paraphrases from facts that differ by a version, a limit or a duration, and
merging them loses the fact. So a pair whose numbers *conflict* (each side has a number
the other lacks) is kept apart whatever its cosine. A side that only leaves a number
out ("Python 3.12 and Postgres 16" vs "Postgres 16") is a paraphrase that drops a
detail, not a conflict. Numbers are digit runs with dotted parts ("3.12", "2" in "2.x",
"256" in "RS256", "1" in "eu-west-1"); "1,000" counts as 1000.

On the 40 hand-written pairs the guard keeps 3 more related pairs apart at every
threshold and splits no paraphrase. A negation guard (one side says "not"/"no"/"never",
the other does not) was measured too and left out: paraphrases move negations around
("not server-side sessions" vs "instead of keeping sessions on the server", "at most
2 MB" vs "no larger than 2 megabytes"), so it split two paraphrases, and the one related
pair it kept apart had a "not" that was not the negation of the other side's claim.
Figures: benchmarks/memory_dedupe.py on tests/fixtures/memory/pairs.json.
"""

from __future__ import annotations

import re

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+")


def numbers(text: str) -> frozenset[str]:
    """The numbers in `text`, canonical: "1,000" → "1000", "08" → "8", "3.10" → "3.10".

    A comma that is not a thousands separator ends the number ("2,16" → "2", "16")."""
    found: set[str] = set()
    for match in _NUMBER.finditer(text):
        token = match.group()
        parts = [token.replace(",", "")] if _THOUSANDS.fullmatch(token) else token.split(",")
        for part in parts:
            found.add(".".join(str(int(piece)) for piece in part.split(".") if piece))
    return frozenset(found)


def numbers_conflict(a: str, b: str) -> bool:
    """Whether each text has a number the other lacks (Node 18 vs Node 20, 15 minutes vs
    30 days); one side merely leaving a number out is not a conflict."""
    na, nb = numbers(a), numbers(b)
    return bool(na - nb) and bool(nb - na)


def same_fact(a: str, b: str, cosine: float, threshold: float) -> bool:
    """Whether memory `b` restates memory `a`: cosine of their vectors at or above
    `threshold` and no conflicting numbers (see the module docstring for why)."""
    return cosine >= threshold and not numbers_conflict(a, b)
