"""HTTP links between services: route templates, mounted prefixes, and matching calls.

Resolution (``resolve.py``) records a file's HTTP facts (``HttpFact``): routes as
declared on their router, client calls, mounts of a router on another, and routers'
own prefixes. Here a route becomes the templates it is served at, by following the
mounts from its router up to an application, and each call links to the routes whose
template and method fit it. Both sides are normalized to one template: ``/users/{}``.

The confidence of a link says how it was made; the weakest part decides, and `via`
names it:

==============  ==========  ===================================================
via             confidence  when
==============  ==========  ===================================================
literal         0.9         every segment literal on both sides, methods equal
template        0.8         a path parameter or an interpolation on either side
any-method      0.7         one side states no method (Django ``path``, ``all``)
unknown-base    0.6         the client's URL starts with a value not read, or is
                            relative (`favorites/toggle`: the client's base goes
                            first, so a route may have more segments in front,
                            `/api/favorites/toggle`; two segments at least)
unknown-prefix  0.5         a prefix above the route could not be read: the
                            route is matched with what is known below it, which
                            may end a longer call (two segments at least)
url-name        0.9         a route's name used (Django's `reverse`, `redirect`,
                            `{% url %}`; Rails's `account_path(a)`); split among up
                            to 3 routes of one name (and method)
==============  ==========  ===================================================

What is read where (``resolve.py``): a prefix or a client URL may be a string literal,
an f-string, template literal or concatenation, or a name holding a string — bound in
the file, imported, or (Python) a class-level string default read through a
module-level instance, ``settings.API_V1_STR`` after ``settings = Settings()``, unless
the attribute may hold another value (set on instances or on any object of the
repository, passed to the constructor, bound twice, a method): then it is unknown.

A JS/TS call is a client call when it names a client (``axios``, ``fetch``, a test
client) or when it takes an options object holding the URL and its callee is shaped
like a client:

====================================  ==============================================
callee                                method
====================================  ==============================================
``x.get({url: …})`` (any verb)        the verb
``x.request({url: …})``               ``method:``, any method without one
``axios({url: …})``                   ``method:``, GET without one
``request``/``__request(…, {url})``   ``method:``, any method without one
====================================  ==============================================

The object literal is one of the first two arguments and its ``url`` a string starting
with ``/`` or ``http`` (``'/items/{id}'`` and ``${id}`` both become parameters). An
object with a ``url`` given to anything else (``router.push({url})``, ``track({url})``)
is not a call.

A call links only to the routes that fit it best (most literal segments in common, then
parameters facing parameters): a call of ``/users/me`` does not also link to
``/users/{id}``, nor a call of ``/users/{uid}`` to ``/users/me``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence

from codecompass.graph.models import EDGE_WEIGHTS
from codecompass.models import Edge, HttpFact, LinkUpdate, OwnedEdges
from codecompass.storage import Backend

LITERAL = ("literal", 0.9)
TEMPLATE = ("template", 0.8)
ANY_METHOD = ("any-method", 0.7)
UNKNOWN_BASE = ("unknown-base", 0.6)
UNKNOWN_PREFIX = ("unknown-prefix", 0.5)
# A prefix (or a client's base URL) that could not be read.
UNKNOWN = "?"
# A client's relative URL (`http.post('favorites/toggle')`): below a base the client adds.
RELATIVE = "?/"
# A request to the handlers of one package only (`@repo/folder`): a Go test's
# `httptest.NewRequest("GET", "/v1/version", nil)`, served by its own package's routes.
PACKAGE = "@"
# Templates one route may be served at (a router mounted in several places).
MAX_TEMPLATES = 16

_WORD_START = re.compile(r"[A-Za-z0-9_]")
_FLASK_PARAM = re.compile(r"<(?:[^:<>]+:)?[^<>]+>")
_BRACE_PARAM = re.compile(r"\{[^{}]*\}")
_COLON_PARAM = re.compile(r"(?<=/):[A-Za-z_]\w*\??")
_REGEX_GROUP = re.compile(r"\((?:[^()]|\([^()]*\))*\)")


# The words of an identifier: `petApi` → pet, api; `HTTPClient` → http, client.
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def name_words(name: str) -> list[str]:
    """The lower-case words of an identifier (camelCase, snake_case, PascalCase)."""
    return [w.lower() for w in _WORD.findall(name)]


def named_as(receiver: str, words: frozenset[str]) -> bool:
    """Whether the last part of a call's receiver (`this.petApi`, `$http`) holds one of
    `words`: the object is named as a client."""
    return any(w in words for w in name_words(receiver.rpartition(".")[2]))


def route_path(raw: str, regex: bool = False) -> str:
    """A declared route as `/seg/{}/seg`: every parameter becomes `{}`."""
    if not raw:
        return ""
    text = raw
    if regex:
        text = text.lstrip("^").rstrip("$")
        text = _REGEX_GROUP.sub("{}", text).replace("\\", "")
    text = _FLASK_PARAM.sub("{}", text)
    text = _BRACE_PARAM.sub("{}", text)
    text = _COLON_PARAM.sub("{}", text).replace("*", "{}")
    return _normal_path(text)


def client_path(raw: str) -> str:
    """The path of a URL an HTTP client calls (`{}` for interpolations), or ""."""
    if not raw:
        return ""
    text = re.sub(r"^[a-zA-Z][a-zA-Z0-9+.-]*://[^/]*", "", raw)
    text = text.split("?", 1)[0].split("#", 1)[0]
    if not text.startswith("/"):
        head, slash, rest = text.partition("/")
        if head == "{}" and slash:
            text = "/" + rest
        elif not slash:
            return ""
    if "/" not in text:
        return ""
    return _normal_path(_BRACE_PARAM.sub("{}", text))


def call_fact(method: str, url: str, line: int, source: str) -> HttpFact | None:
    """A client call's fact from a URL as written in code (`{name}` for a value not read):
    a URL with no leading `/` is relative to the client's base address, one starting
    with a value not read (`{baseUrl}/x`) has an unknown base."""
    url = url.split("?", 1)[0]
    if url.startswith("{") and "}" in url:
        rest = url.partition("}")[2]
        # `{baseUrl}items/{id}`, Angular's `${this.url}tv/pending`: the base ends with a
        # slash, what follows is relative (not a segment `{}tv` that fits any)
        if _WORD_START.match(rest):
            url = rest
        elif not url.startswith("{}"):
            url = "{}" + rest
    pattern = client_path(url if url.startswith(("/", "http", "{")) else "/" + url)
    if not pattern:
        return None
    router = UNKNOWN if url.startswith("{") else "" if url.startswith(("/", "http")) else RELATIVE
    return HttpFact("call", method, pattern, line, source, router=router)


def join_paths(*parts: str) -> str:
    return _normal_path("/".join(parts))


def _normal_path(text: str) -> str:
    segments = [s for s in text.split("/") if s]
    return "/" + "/".join(segments)


def _match(route: str, call: str) -> tuple[int, int, bool] | None:
    """When the paths can be the same: how well they fit (literal segments in common,
    then parameters facing parameters) and whether a parameter took part; else None.
    At least one literal segment must match. Literals compare ignoring case (ASP.NET and
    Express route so: `catalogBrands` is `/catalogbrands`); a segment with a literal
    head before a parameter (`folders{}`: `folders${query}`) fits only a segment that
    starts so, and counts as literal."""
    return _fit(_segments(route), _segments(call))


def _segments(path: str) -> list[str]:
    """A path's segments as `_fit` compares them (lower case)."""
    return path.strip("/").lower().split("/") if path.strip("/") else []


def _fit(a: Sequence[str], b: Sequence[str]) -> tuple[int, int, bool] | None:
    """`_match` on paths already cut into segments; the root (no segment) fits itself,
    as a literal (`link_http` asks both sides to state its method)."""
    if not a and not b:
        return (1, 0, False)
    if len(a) != len(b) or not a:
        return None
    literal = aligned = 0
    wild = False
    for x, y in zip(a, b, strict=True):
        if x == y and x != "{}":
            literal += 1
        elif x == "{}" or y == "{}":
            wild = True
            aligned += x == y
        elif "{}" in x or "{}" in y:
            head_x, head_y = x.partition("{}")[0], y.partition("{}")[0]
            if not (x.startswith(head_y) if "{}" in y else y.startswith(head_x)):
                return None
            wild = True
            literal += bool(head_x if "{}" in x else head_y)  # `{}.{}` is no literal
        else:
            return None
    return (literal, aligned, wild) if literal else None


def paths_match(route: str, call: str) -> float:
    """0 when the paths cannot be the same; 0.9 all literal; 0.8 with parameters."""
    found = _match(route, call)
    if found is None:
        return 0.0
    return TEMPLATE[1] if found[2] else LITERAL[1]


class Mounts:
    """Where routers are served: their own prefixes and the mounts between them."""

    def __init__(self, facts: Sequence[HttpFact]) -> None:
        self.own = {f.node: f.pattern for f in facts if f.role == "router"}
        self.up: dict[str, list[HttpFact]] = {}
        for f in facts:
            if f.role == "mount":
                self.up.setdefault(f.node, []).append(f)
        self._chains: dict[str, list[list[str]]] = {}

    def templates(self, route: HttpFact) -> list[tuple[str, bool]]:
        """(template, whether every prefix above the route is known) for each place the
        route is served; below an unknown prefix only what follows it is kept."""
        out: list[tuple[str, bool]] = []
        for chain in self.chains(route.router) if route.router else [[]]:
            pieces = [*chain, route.pattern]
            known = UNKNOWN not in pieces
            if not known:
                last = len(pieces) - 1 - pieces[::-1].index(UNKNOWN)
                pieces = pieces[last + 1 :]
            found = (join_paths(*pieces), known)
            if found not in out:
                out.append(found)
        return out

    def chains(self, router: str, seen: frozenset[str] = frozenset()) -> list[list[str]]:
        """The prefixes from an application down to `router`, one list per way there."""
        if router in self._chains:
            return self._chains[router]
        own = self.own.get(router, "")
        mine = [own] if own else []
        out: list[list[str]] = []
        for mount in self.up.get(router, []):
            if mount.router in seen or mount.router == router:
                continue
            below = [mount.pattern] if mount.method == "replace" else [mount.pattern, *mine]
            for above in self.chains(mount.router, seen | {router}):
                out.append([*above, *below])
        out = out[:MAX_TEMPLATES] or [mine]
        if not seen:
            self._chains[router] = out
        return out


def link_http(facts: Sequence[HttpFact]) -> dict[tuple[str, str], list[Edge]]:
    """Edges from each call to the routes it may reach, by the call's file."""
    mounts = Mounts(facts)
    # by length: only equal lengths match (a relative call: the route's last segments)
    by_length: dict[int, list[tuple[HttpFact, str, list[str], bool]]] = {}
    for route in (f for f in facts if f.role == "route"):
        for template, known in mounts.templates(route):
            segments = _segments(template)
            by_length.setdefault(len(segments), []).append((route, template, segments, known))
    by_owner: dict[tuple[str, str], list[Edge]] = {}
    _link_names(facts, by_owner)
    longest = max(by_length, default=0)
    for call in (f for f in facts if f.role == "call"):
        found: dict[
            tuple[str, int], tuple[tuple[int, int, int, int], float, str, HttpFact, str]
        ] = {}
        # a request an application makes to itself (MockMvc's): below its own prefix
        own = mounts.own.get(call.router, "") if call.router not in (UNKNOWN, RELATIVE) else ""
        package = call.router[1:] if call.router.startswith(PACKAGE) else None
        wanted = _segments(join_paths(own, call.pattern) if own else call.pattern)
        length = len(wanted)
        # Below a client's base, a route may have more segments in front (`/api`):
        # `favorites/toggle` is `/api/favorites/toggle`, `data` is `/api/data`; so may a
        # URL after a base not read (`config.apiUrl + '/recipes/' + id`).
        tail = call.router in (RELATIVE, UNKNOWN)
        lengths = range(length, longest + 1) if tail else [length]
        # Below a prefix not read, a route may end a longer call (`/items/7/price` of
        # `@Path(Paths.ITEMS)` + `{id}/price`): two segments at least.
        shorter = (r for n in range(2, length) for r in by_length.get(n, []) if not r[3])
        for route, template, segments, known in (
            *(r for n in lengths for r in by_length.get(n, [])),
            *shorter,
        ):
            if package is not None and f"{route.repo}/{posixpath.dirname(route.path)}" != package:
                continue
            if len(segments) < length:
                match = _fit(segments, wanted[length - len(segments) :])
            else:
                match = _fit(segments[len(segments) - length :], wanted)
            if match is None:
                continue
            stated = "*" not in (route.method, call.method)
            if stated and route.method != call.method:
                continue
            if not segments and not stated:
                continue  # the root of any method: a catch-all (`mux.HandleFunc("/", …)`)
            how = [TEMPLATE if match[2] else LITERAL]
            how += [] if stated else [ANY_METHOD]
            how += [UNKNOWN_BASE] if call.router in (UNKNOWN, RELATIVE) else []
            how += [] if known else [UNKNOWN_PREFIX]
            via, confidence = min(how, key=lambda h: h[1])
            # the fewest segments in front of a relative URL: `songs/{}` is `/api/songs/{}`
            # rather than `/api/albums/{}/songs/{}`; then the route nearest the caller
            # (a service's tests request its own `/current`, not another service's)
            extra = abs(len(segments) - length)
            near = _nearness(call, route)
            fit, key = (*match[:2], -extra, near), (route.node, route.line)
            if key not in found or (fit, confidence) > found[key][:2]:
                found[key] = (fit, confidence, via, route, template)
        best = max((f[0] for f in found.values()), default=(0, 0, 0, 0))
        for fit, confidence, via, route, template in found.values():
            if fit < best:
                continue
            method = call.method if call.method != "*" else route.method
            by_owner.setdefault((call.repo, call.path), []).append(
                _link(call, route, confidence, f"{method} {template}", via)
            )
    return by_owner


def _link(call: HttpFact, route: HttpFact, confidence: float, name: str, via: str) -> Edge:
    """The `http` edge from a call (or a use of a route's name) to a route's handler."""
    return fact_edge("http", call.node, route.node, name, confidence, via, call.line, route)


def fact_edge(
    kind: str,
    source: str,
    target: str,
    name: str,
    confidence: float,
    via: str,
    line: int,
    other: HttpFact,
) -> Edge:
    """A resolved edge between services, evidenced at `line` and at `other`'s place."""
    return Edge(
        source=source,
        target=target,
        type=kind,
        weight=EDGE_WEIGHTS[kind],
        confidence=confidence,
        resolved=True,
        via=via,
        name=name,
        evidence_line=line,
        target_repo=other.repo,
        target_path=other.path,
        target_line=other.line,
    )


def _link_names(facts: Sequence[HttpFact], by_owner: dict[tuple[str, str], list[Edge]]) -> None:
    """Each use of a route's name (`reverse("front:hc-details")`, `{% url … %}`) to the
    view the route of that name serves (`via` `url-name`; split among up to 3)."""
    named: dict[str, list[HttpFact]] = {}
    for fact in facts:
        if fact.role == "named":
            named.setdefault(fact.pattern, []).append(fact)
    for use in (f for f in facts if f.role == "by-name"):
        routes = named.get(use.pattern, [])
        if use.method != "*":  # `post sync_account_url(…)`: the route of that method
            routes = [r for r in routes if r.method in (use.method, "*")]
        else:  # `link_to …, account_path(a)`: the one a browser gets, if any
            routes = [r for r in routes if r.method in ("GET", "*")] or routes
        if not routes or len(routes) > 3:
            continue
        confidence = LITERAL[1] if len(routes) == 1 else round(0.8 / len(routes), 4)
        for route in routes:
            method = use.method if use.method != "*" else route.method
            by_owner.setdefault((use.repo, use.path), []).append(
                _link(use, route, confidence, f"{method} url {use.pattern}", "url-name")
            )


def _nearness(call: HttpFact, route: HttpFact) -> int:
    """The folders the call's and the route's files share from the repository's root
    (0 across repositories)."""
    if call.repo != route.repo:
        return 0
    shared = 0
    for a, b in zip(call.path.split("/")[:-1], route.path.split("/")[:-1], strict=False):
        if a != b:
            break
        shared += 1
    return shared


def relink_http(backend: Backend) -> int:
    """Match every HTTP client call of the workspace to the routes that fit it again."""
    by_owner = link_http(backend.links.http_facts())
    owned = [OwnedEdges(repo, path, (), rows) for (repo, path), rows in by_owner.items()]
    backend.edges.write_links(LinkUpdate(drop_types=("http",), owned=owned))
    return sum(len(rows) for rows in by_owner.values())
