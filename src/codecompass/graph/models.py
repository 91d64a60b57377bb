"""The edge vocabulary of the code graph: types and default weights.

Node ids are readable and stable: ``repo`` for a repository, ``repo/path`` for a file,
``repo/path#Qualified.name`` for a symbol (``@line`` appended for a repeated name in one
file; an OpenAPI operation is a symbol of its document, ``repo/openapi.yaml#paths./users/
{id}.get``, see ``openapi.py``), ``kw:word`` for a keyword, ``event:broker/name`` for a
topic, a queue or an event (``event:kafka/orders``, see ``events.py``),
``rpc:package.Service/Method`` for an rpc a ``.proto`` file declares
(``rpc:shop.Checkout/PlaceOrder``, see ``rpc.py``) and ``?name`` for a target that could
not be resolved (``?os.path.join`` when the name is known to come from outside the
workspace).
"""

from __future__ import annotations

from codecompass.models import Edge

# Topic, queue and event nodes: `event:<broker>/<name>` (graph/events.py).
TOPIC_PREFIX = "event:"
# rpc nodes: `rpc:<package>.<Service>/<Method>` (graph/rpc.py).
RPC_PREFIX = "rpc:"
# Nodes that are neither a repository, a file nor a symbol.
VIRTUAL_PREFIXES = ("?", "kw:", TOPIC_PREFIX, RPC_PREFIX)

# Edge types and their default weights. Seed 000 fixes REFERS_TO 1.0, MENTIONS_SYMBOL 0.8,
# MEMBER_OF 0.6, CONTAINS 0.4, HAS_KEYWORD 0.3, SIMILAR_TO 0.2; code relations (imports,
# calls, inheritance, HTTP, package, event and rpc links, a handler serving an OpenAPI
# operation or an rpc) are direct references, so they weigh 1.0.
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
    "emits": 1.0,
    "listens": 1.0,
    "event": 1.0,
    "serves": 1.0,
    "rpc": 1.0,
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
    "emits",
    "listens",
    "event",
    "serves",
    "rpc",
)
# What `callers` follows by default: calls, HTTP clients calling a route or an OpenAPI
# operation, producers of an event a handler listens to, rpc clients of a server.
CALLER_TYPES: tuple[str, ...] = ("calls", "http", "event", "rpc")
# Symbol kinds that are types.
TYPE_KINDS = frozenset({"class", "interface", "struct", "trait", "enum", "type"})
# What `callers` follows too for a type: who names it (an annotation, a parameter's or a
# field's type, a generic argument) and who derives from it. eShop's `callers
# IBasketRepository` found no one: it is injected, never called.
TYPE_USER_TYPES: tuple[str, ...] = ("references", "extends", "implements")
# What `callers` follows of the `references` to a function: it passed on as a value
# (`pet::setType`, `r.Use(middleware.Logger)`), which its receiver calls.
VALUE_VIAS: frozenset[str] = frozenset({"value"})
# The links between services, by `via` (seed 004): the edge types that record each.
# `sdk` is a dependency on a package another repository provides; a `serves` edge is
# an rpc link when it reaches an rpc node, else an HTTP one (an OpenAPI operation).
LINK_VIAS: dict[str, tuple[str, ...]] = {
    "http": ("http", "serves"),
    "rpc": ("rpc", "serves"),
    "sdk": ("package",),
    "event": ("event",),
}
# Other names users give a kind: the docs say gRPC throughout.
VIA_ALIASES = {"grpc": "rpc"}


def link_via(edge_type: str, target: str) -> str | None:
    """The kind of service link (`LINK_VIAS`) an edge is, or None."""
    if edge_type == "serves":
        return "rpc" if target.startswith(RPC_PREFIX) else "http"
    return next((via for via, types in LINK_VIAS.items() if edge_type in types), None)


def joined_edge(
    kind: str, name: str, near: Edge, far: Edge, far_repo: str, far_path: str | None
) -> Edge:
    """The edge from `near`'s source to `far`'s source, two sides meeting at one node (a
    producer and a consumer at a topic, a client and a handler at an operation): the
    weaker side's confidence and via, each side's evidence line."""
    weaker = near if near.confidence <= far.confidence else far
    return Edge(
        source=near.source,
        target=far.source,
        type=kind,
        weight=EDGE_WEIGHTS[kind],
        confidence=weaker.confidence,
        resolved=True,
        via=weaker.via,
        name=name,
        evidence_line=near.evidence_line,
        target_repo=far_repo,
        target_path=far_path,
        target_line=far.evidence_line,
    )
