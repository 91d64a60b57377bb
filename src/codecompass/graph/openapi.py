"""OpenAPI links: the operations of OpenAPI and Swagger documents, the handlers serving
them and the clients calling them.

An operation is a symbol of its document (``indexing/openapi.py``):
``repo/openapi.yaml#paths./users/{id}.get``. Resolution records it as an ``operation``
fact (`openapi_facts`): its method, its template normalized as HTTP routes are
(``/api/users/{}``, the servers' base path in front; see ``http.py``) and its
operationId. After every link run `openapi_links` writes:

- ``serves``: handler → operation. A route (``http.py``'s route facts, with the
  prefixes of the routers it is mounted under) of the same method and template serves
  it; when none does, a function named by the operationId: ``app.handlers.get_user``
  (connexion: a module and a function), else a function of the document's
  repository named like it (``getUser``, ``get_user``, ``GetUser`` are one name).
- ``http``: client → operation, for an HTTP client call that fits the operation as it
  would fit a route (same rules and confidence as ``http.py``), and for a call of a
  method named after the operationId on an object of a package outside the workspace
  or of unknown type (a generated client: ``api.get_user(…)``, ``client.getUser(…)``);
  an operationId of one word (``list``) is too common a name to link, and an object of
  unknown type must be named as a client (``api``, ``petApi``, ``client``, ``sdk``,
  ``service``): koel's ``event.clipboardData.getData('text')`` is no call of its API's
  ``getData``.
- ``http``: client → handler through the operation, when the client reaches an
  operation a handler serves and no route link joins them already (a generated client;
  a connexion handler has no route of its own). Confidence and `via` are the weaker
  side's; the evidence lines are the client's call and the handler's.

Confidence says how each side was matched:

===============  =================  ==============================================
via              confidence         when
===============  =================  ==============================================
route            0.9                serves: a route of that method and template
any-method       0.7                serves: a route for any method (Django's
                                    ``path``); client: a call stating no method
unknown-prefix   0.5                serves: a route under a prefix that could not
                                    be read, ending like the operation's template
operation-id     0.9                serves: the module and function a dotted
                                    operationId names (0.8 / k for k ≤ 3 of them)
name             min(0.6, 0.8 / k)  serves: one of k ≤ 3 functions of the
                                    document's repository named like the
                                    operationId
literal          0.9                client: an HTTP call, every segment literal
template         0.8                client: an HTTP call with path parameters
unknown-base     0.6                client: an HTTP call whose base URL is not read
generated        min(0.6, 0.8 / k)  client: a method named after the operationId of
                                    k ≤ 3 operations, on an external object (0.5 when
                                    its type is unknown)
===============  =================  ==============================================
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from codecompass.graph.http import Mounts, link_http, name_words, named_as, route_path
from codecompass.graph.models import EDGE_WEIGHTS, joined_edge
from codecompass.graph.resolve import Ctx, FileResolution, Resolver
from codecompass.indexing.languages import is_test_path
from codecompass.models import Edge, EdgeQuery, HttpFact, SymbolQuery, SymbolRecord
from codecompass.storage import Backend

ROUTE = ("route", 0.9)
ANY_METHOD = ("any-method", 0.7)
UNKNOWN_PREFIX = ("unknown-prefix", 0.5)
OPERATION_ID = ("operation-id", 0.9)
NAME = ("name", 0.6)
GENERATED = ("generated", 0.6)
GENERATED_UNKNOWN = ("generated", 0.5)
MAX_CANDIDATES = 3
_HANDLER_KINDS = frozenset({"function", "method"})
_NAME_BATCH = 500
# Words naming an object as an API client (`http.named_as`).
CLIENT_WORDS = frozenset({"api", "apis", "client", "sdk", "service", "stub", "gateway"})
_SOURCE_SUFFIX = re.compile(r"\.(?:py|pyi|js|jsx|mjs|cjs|ts|tsx|go|java|rb|php|cs)$")


def openapi_facts(resolver: Resolver, ctx: Ctx, out: FileResolution) -> list[HttpFact]:
    """The operations a YAML or JSON document declares (`Endpoint`s of its facts)."""
    facts: list[HttpFact] = []
    for e in ctx.facts.endpoints:
        if e.kind != "openapi":
            continue
        method, _, path = e.name.partition(" ")
        found = ctx.symbol(e.symbol, e.line)
        node = found.id if found is not None else f"{ctx.file_id}#{e.symbol}"
        facts.append(HttpFact("operation", method, route_path(path), e.line, node, router=e.alias))
    return facts


def openapi_links(backend: Backend, facts: Sequence[HttpFact]) -> dict[tuple[str, str], list[Edge]]:
    """Every `serves` edge into an operation and every `http` edge through one, by
    owning file. HTTP route links must be written already (`relink_http`)."""
    operations = [f for f in facts if f.role == "operation"]
    if not operations:
        return {}
    by_owner: dict[tuple[str, str], list[Edge]] = {}
    clients = _http_clients(facts, operations) + _generated_clients(backend, operations)
    callers = {(e.source, e.target) for _, e in clients}  # a function calling it serves none
    served = _route_serves(facts, operations)
    unserved = [op for op in operations if op.node not in served]
    for op, edges in _named_serves(backend, unserved, callers).items():
        served.setdefault(op, []).extend(edges)
    for owner, edge in [*(row for rows in served.values() for row in rows), *clients]:
        by_owner.setdefault(owner, []).append(edge)
    direct = {
        (e.source, e.evidence_line, e.target)
        for e in backend.edges.edges(EdgeQuery(types=["http"]))
    }
    for owner, edge in _joins(clients, served, direct):
        by_owner.setdefault(owner, []).append(edge)
    return by_owner


Owned = tuple[tuple[str, str], Edge]


def _route_serves(
    facts: Sequence[HttpFact], operations: Sequence[HttpFact]
) -> dict[str, list[Owned]]:
    """Handlers whose route is an operation's method and template, by operation."""
    mounts = Mounts(facts)
    by_template: dict[str, list[HttpFact]] = {}
    for op in operations:
        by_template.setdefault(op.pattern, []).append(op)
    out: dict[str, list[Owned]] = {}
    for route in (f for f in facts if f.role == "route"):
        for template, known in mounts.templates(route):
            if known:
                found = by_template.get(template, [])
            elif template != "/":
                found = [op for op in operations if _ends_with(op.pattern, template)]
            else:
                continue
            for op in found:
                if route.method not in ("*", op.method):
                    continue
                how = UNKNOWN_PREFIX if not known else ROUTE if route.method != "*" else ANY_METHOD
                rows = out.setdefault(op.node, [])
                if not any(e.source == route.node for _, e in rows):
                    rows.append(
                        ((route.repo, route.path), _edge("serves", route.node, op, how, route.line))
                    )
    return out


def _named_serves(
    backend: Backend, operations: Sequence[HttpFact], callers: set[tuple[str, str]]
) -> dict[str, list[Owned]]:
    """Handlers an operationId names (connexion's `module.function`), else functions of
    the document's repository named like it, that do not call the operation
    themselves (a hand-written client next to its copy of the document)."""
    wanted = [op for op in operations if op.router]
    names = sorted({v for op in wanted for v in _variants(op.router.rpartition(".")[2])})
    found: dict[str, list[SymbolRecord]] = {}
    for start in range(0, len(names), _NAME_BATCH):
        query = SymbolQuery(names=names[start : start + _NAME_BATCH])
        for s in backend.symbols.symbols(query):
            if s.kind in _HANDLER_KINDS and not is_test_path(s.path):
                found.setdefault(_fold(s.name), []).append(s)
    out: dict[str, list[Owned]] = {}
    for op in wanted:
        module, _, name = op.router.rpartition(".")
        candidates = [s for s in found.get(_fold(name), []) if (s.id, op.node) not in callers]
        if module:
            chosen = [s for s in candidates if f".{_dotted(s)}".endswith(f".{op.router}")]
            how = OPERATION_ID
        else:
            chosen = [s for s in candidates if s.repo == op.repo and s.name == name] or [
                s for s in candidates if s.repo == op.repo
            ]
            how = NAME
        if not chosen or len(chosen) > MAX_CANDIDATES:
            continue
        confidence = how[1] if len(chosen) == 1 else min(how[1], 0.8 / len(chosen))
        for s in chosen:
            edge = _edge("serves", s.id, op, (how[0], round(confidence, 4)), s.start_line)
            out.setdefault(op.node, []).append(((s.repo, s.path), edge))
    return out


def _http_clients(facts: Sequence[HttpFact], operations: Sequence[HttpFact]) -> list[Owned]:
    """HTTP client calls fitting an operation as they would fit a route, unless a route
    of the code fits them better (koel's `browse/songs?…` is its `/api/browse/songs`,
    which no operation documents, not `/api/playlist/{playlistId}/songs`)."""
    if not any(f.role == "call" for f in facts):
        return []
    as_routes = [replace(op, role="route", router="") for op in operations]
    documented = {op.node for op in operations}
    out: list[Owned] = []
    for owner, rows in link_http([*as_routes, *facts]).items():
        out += [(owner, row) for row in rows if row.target in documented]
    return out


def _generated_clients(backend: Backend, operations: Sequence[HttpFact]) -> list[Owned]:
    """Calls of a method named after an operationId on an object from outside the
    workspace, or of an unknown type."""
    by_name: dict[str, list[HttpFact]] = {}
    for op in operations:
        name = op.router.rpartition(".")[2]
        if len(name_words(name)) >= 2:
            by_name.setdefault(_fold(name), []).append(op)
    if not by_name:
        return []
    out: list[Owned] = []
    for repo in (r.id for r in backend.repos.repos()):
        query = EdgeQuery(types=["calls"], resolved=False, repo=repo)
        for call in backend.edges.edges(query):
            if call.via not in ("external", "unknown") or "." not in call.name.strip("."):
                continue
            if call.via == "unknown" and not named_as(_receiver(call.name), CLIENT_WORDS):
                continue
            found = by_name.get(_fold(call.target.rpartition(".")[2]))
            if not found or len(found) > MAX_CANDIDATES:
                continue
            how = GENERATED if call.via == "external" else GENERATED_UNKNOWN
            confidence = round(min(how[1], 0.8 / len(found)), 4)
            for op in found:
                edge = _edge("http", call.source, op, (how[0], confidence), call.evidence_line or 0)
                out.append(((repo, call.evidence_path or ""), edge))
    return out


def _joins(
    clients: Iterable[Owned],
    served: dict[str, list[Owned]],
    direct: set[tuple[str, int | None, str]],
) -> list[Owned]:
    """Client → handler through the operation both meet at."""
    out: list[Owned] = []
    seen: set[tuple[str, int | None, str]] = set(direct)
    for owner, call in clients:
        for (repo, path), serve in served.get(call.target, []):
            key = (call.source, call.evidence_line, serve.source)
            if key in seen or call.source == serve.source:
                continue
            seen.add(key)
            out.append((owner, joined_edge("http", call.name, call, serve, repo, path)))
    return out


def _edge(kind: str, source: str, op: HttpFact, how: tuple[str, float], line: int) -> Edge:
    return Edge(
        source=source,
        target=op.node,
        type=kind,
        weight=EDGE_WEIGHTS[kind],
        confidence=how[1],
        resolved=True,
        via=how[0],
        name=f"{op.method} {op.pattern}",
        evidence_line=line,
        target_repo=op.repo,
        target_path=op.path,
        target_line=op.line,
    )


def _ends_with(template: str, tail: str) -> bool:
    a, b = template.strip("/").split("/"), tail.strip("/").split("/")
    return len(b) <= len(a) and a[len(a) - len(b) :] == b


def _receiver(chain: str) -> str:
    """What a call is made on: `api.pets.removePet` → `api.pets`."""
    return chain.strip(".").rpartition(".")[0]


def _fold(name: str) -> str:
    """One spelling for `getUser`, `get_user` and `GetUser`."""
    return name.replace("_", "").replace("-", "").lower()


def _variants(name: str) -> list[str]:
    """The spellings of an operationId a function may have: as written, snake_case,
    camelCase and PascalCase."""
    words = name_words(name)
    if not words:
        return [name]
    camel = words[0] + "".join(w.capitalize() for w in words[1:])
    return list(dict.fromkeys([name, "_".join(words), camel, camel[:1].upper() + camel[1:]]))


def _dotted(symbol: SymbolRecord) -> str:
    """A function as an operationId names it: `app.handlers.get_user`."""
    module = _SOURCE_SUFFIX.sub("", symbol.path).replace("/", ".").removesuffix(".__init__")
    return f"{module}.{symbol.qualified_name}"
