"""Result types of the graph API and the edge vocabulary (types, default weights).

Node ids are readable and stable: ``repo`` for a repository, ``repo/path`` for a file,
``repo/path#Qualified.name`` for a symbol (``@line`` appended for a repeated name in one
file), ``kw:word`` for a keyword and ``?name`` for a target that could not be resolved
(``?os.path.join`` when the name is known to come from outside the workspace).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

# Edge types and their default weights. Seed 000 fixes REFERS_TO 1.0, MENTIONS_SYMBOL 0.8,
# MEMBER_OF 0.6, CONTAINS 0.4, HAS_KEYWORD 0.3, SIMILAR_TO 0.2; code relations (imports,
# calls, inheritance, HTTP and package links) are direct references, so they weigh 1.0.
# `contains` from a class to its members is the MEMBER_OF reading and weighs 0.6; a
# `references` edge weighs 1.0 for an explicit link (@see, {@link}, a Markdown link, a
# Sphinx role) and 0.8 for a mention (backticks, a type annotation, a decorator).
EDGE_WEIGHTS: dict[str, float] = {
    "contains": 0.4,
    "imports": 1.0,
    "calls": 1.0,
    "extends": 1.0,
    "implements": 1.0,
    "references": 0.8,
    "keyword": 0.3,
    "similar": 0.2,
    "http": 1.0,
    "package": 1.0,
}
EDGE_TYPES: tuple[str, ...] = tuple(EDGE_WEIGHTS)
MEMBER_WEIGHT = 0.6
LINK_WEIGHT = 1.0
# The relations a reader means by "what does X depend on": structure and association
# (contains, keyword, similar) are left out unless asked for.
DEPENDENCY_TYPES: tuple[str, ...] = (
    "imports",
    "calls",
    "extends",
    "implements",
    "references",
    "http",
    "package",
)


def _as_dict(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


@dataclass(frozen=True, slots=True)
class SymbolMatch:
    id: str
    repo: str
    path: str
    name: str
    qualified_name: str
    kind: str
    signature: str
    start_line: int
    end_line: int
    score: float
    exact: bool

    def as_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True, slots=True)
class GraphNode:
    id: str
    kind: str  # repo, file, a symbol kind (class, function, …), keyword, unresolved
    name: str
    repo: str | None
    path: str | None
    start_line: int | None
    end_line: int | None
    importance: float

    def as_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True, slots=True)
class GraphEdge:
    source: str
    target: str
    type: str
    weight: float
    confidence: float
    evidence_path: str | None  # in the source node's repository
    evidence_line: int | None
    resolved: bool
    # How the target was found: import, scope, self, inherit, annotation, name, route, …
    via: str = ""
    # The other side's evidence, for links whose target is declared somewhere checkable:
    # the route declaration of an HTTP link, the package declaration of a package link.
    target_evidence_path: str | None = None  # in the target node's repository
    target_evidence_line: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return _as_dict(self)


@dataclass(frozen=True, slots=True)
class GraphResult:
    root: str
    nodes: list[GraphNode]
    edges: list[GraphEdge]
    paths: list[list[str]]  # node ids from the root to each node reached
    truncated: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "nodes": [n.as_dict() for n in self.nodes],
            "edges": [e.as_dict() for e in self.edges],
            "paths": [list(p) for p in self.paths],
            "truncated": self.truncated,
        }


@dataclass(frozen=True, slots=True)
class Overview:
    repo: str
    text: str
    tokens: int
    files: list[dict[str, Any]]

    def as_dict(self) -> dict[str, Any]:
        return _as_dict(self)
