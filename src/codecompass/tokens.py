"""Code-aware tokens for the lexical index and for queries.

Identifiers are kept whole *and* split on snake_case, camelCase and digit boundaries,
so `verifyToken`, `verify_token` and "verify token" all meet: `parseHTTPResponse2` →
`parsehttpresponse2 parse http response 2`, `getURLs` → `geturls get urls`.
"""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+")
# A plural acronym is one part (`getURLs` → get urls), unless its `s` starts a word.
_CAMEL = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
MAX_TOKEN_CHARS = 64


def split_identifier(word: str) -> list[str]:
    """Lower-cased parts of one identifier; empty when it has no inner boundary."""
    return list(_parts(word))


# Identifiers repeat: a cache makes tokenizing a repository's text several times faster.
@lru_cache(maxsize=1 << 16)
def _parts(word: str) -> tuple[str, ...]:
    parts: list[str] = []
    for piece in word.split("_"):
        parts.extend(p.lower() for p in _CAMEL.findall(piece))
    if len(parts) <= 1:
        return ()
    return tuple(parts)


def code_tokens(text: str) -> list[str]:
    """Every identifier whole (lower-cased) followed by its parts, in text order."""
    tokens: list[str] = []
    for match in _WORD.finditer(text):
        word = match.group()
        if len(word) > MAX_TOKEN_CHARS:
            continue
        whole = word.strip("_").lower()
        if whole:
            tokens.append(whole)
        tokens.extend(_parts(word))
    return tokens
