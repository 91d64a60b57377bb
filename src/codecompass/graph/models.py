"""The edge vocabulary of the code graph: types and default weights.

Node ids are readable and stable: ``repo`` for a repository, ``repo/path`` for a file,
``repo/path#Qualified.name`` for a symbol (``@line`` appended for a repeated name in one
file), ``kw:word`` for a keyword and ``?name`` for a target that could not be resolved
(``?os.path.join`` when the name is known to come from outside the workspace).
"""

from __future__ import annotations

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
