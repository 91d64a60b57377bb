"""rpc links between services: gRPC servers and the stubs calling them, through the rpc
methods that ``.proto`` files declare.

An rpc is a node of its own, named by gRPC's full method name: ``rpc:<package>.<Service>/
<Method>`` (``rpc:shop.Checkout/PlaceOrder``; ``rpc:Checkout/PlaceOrder`` for a file
without a ``package``). Copies of one ``.proto`` in several repositories declare the same
node. Resolution hands every file to `rpc_facts` once its references are resolved; it
reads the file's rpc facts (``HttpFact``) mostly from the names its calls and bases
resolved to outside the workspace, since generated code is not indexed:

==========  =====================================================================
language    servers (``serve``)                    clients (``stub``)
==========  =====================================================================
Python      ``class S(x_pb2_grpc.XServicer)``;     ``x_pb2_grpc.XStub(ch).M(…)``
            ``add_XServicer_to_server(S(), srv)``
Go          ``pb.RegisterXServer(srv, &s{})``; a   ``pb.NewXClient(conn).M(…)``, a
            struct embedding                       value declared ``pb.XClient``
            ``pb.UnimplementedXServer``
Node        ``server.addService(proto.pkg.X        ``new proto.pkg.X(addr, creds).m(…)``
            .service, {m: impl})``                 (``loadPackageDefinition``),
                                                   ``new x_grpc_pb.XClient(…).m(…)``
Java        ``class S extends XGrpc.XImplBase``    ``XGrpc.newBlockingStub(ch).m(…)``
C#          ``class S : X.XBase``                  ``new X.XClient(ch).M(Async)(…)``
==========  =====================================================================

A server's methods implement the rpcs of its service they are named after (case aside:
Java and Node use ``placeOrder`` for ``PlaceOrder``). A Python class is a servicer when
its method resolution order reaches the generated base through classes of the
workspace too, and its methods include those it inherits from them; a Node service
whose definition cannot be read (a helper returning ``loadPackageDefinition(…)``) is
named as written (``shopProto.CurrencyService.service``). After every link run `link_rpc`
matches each side to the rpcs the workspace's ``.proto`` files declare (service and
method; the package when the code names it, else the generated module's name when
several packages declare the service) and writes:

- ``serves``: the implementing method → the rpc node, with the method's own line as
  evidence (``via`` says whether a base class or a registration told it), and the
  rpc's line in the ``.proto`` (the copy in the method's repository first) as the
  other side's;
- ``rpc``: each client function → each implementing method (the call's line; the
  method's line), named by the rpc; to the rpc node itself when no indexed server
  implements it.

Confidence says how the rpc was told:

==========  =================  ===================================================
via         confidence         when
==========  =================  ===================================================
servicer    0.9                a class extending (embedding) the generated base
registered  0.9                a type or function registered for the service
stub        0.9                a call through a generated client
ambiguous   min(0.4, 0.8 / k)  the service is declared in k ≤ 3 packages and the
                               code does not say which
==========  =================  ===================================================

An ``rpc`` edge takes the weaker side's confidence and ``via``.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import replace

from codecompass.graph.http import fact_edge
from codecompass.graph.models import RPC_PREFIX
from codecompass.graph.resolve import Ctx, FileResolution, Resolver
from codecompass.graph.resolve_typed import typed_instance
from codecompass.indexing.extract import DEEP_LANGUAGES, ECMA_LANGUAGES
from codecompass.indexing.facts import Ref
from codecompass.models import Edge, HttpFact, SymbolRecord

SERVICER = ("servicer", 0.9)
REGISTERED = ("registered", 0.9)
STUB = ("stub", 0.9)
AMBIGUOUS = "ambiguous"
MAX_PACKAGES = 3
_VIA_ORDER = ("servicer", "registered", "stub", AMBIGUOUS)
_METHOD_KINDS = frozenset({"method", "function"})

# Names of generated code, as calls and bases resolve to them outside the workspace.
_STUBS: dict[str, tuple[re.Pattern[str], ...]] = {
    "python": (
        re.compile(
            r"(?:^|\.)(?P<module>\w+)\.(?P<service>\w+)Stub\.(?P<method>\w+)"
            r"(?:\.(?:future|with_call))?$"
        ),
    ),
    "go": (  # not net/http's `http.DefaultClient.Do`
        re.compile(
            r"(?:^|\.)(?!http\.)(?P<module>\w+)\.(?:New)?(?P<service>\w+)Client\.(?P<method>\w+)$"
        ),
    ),
    "java": (
        re.compile(
            r"(?:^|\.)(?P<service>\w+)Grpc\."
            r"(?:(?P=service)(?:Blocking|Future)?Stub|new(?:Blocking|Future)?Stub)\.(?P<method>\w+)$"
        ),
    ),
    "csharp": (
        re.compile(r"(?:^|\.)(?P<service>\w+)\.(?P=service)Client\.(?P<method>\w+?)(?:Async)?$"),
    ),
    "ecma": (
        re.compile(r"\.loadPackageDefinition\.(?P<path>[\w.]+)\.(?P<method>\w+)$"),
        re.compile(r"(?P<module>\w+_grpc_pb)\.(?P<service>\w+)Client\.(?P<method>\w+)$"),
    ),
}
_BASES: dict[str, re.Pattern[str]] = {
    "python": re.compile(r"(?:^|\.)(?:(?P<module>\w+)\.)?(?P<service>\w+)Servicer$"),
    "go": re.compile(r"(?:^|\.)Unimplemented(?P<service>\w+)Server$"),
    "java": re.compile(r"(?:^|\.)(?P<service>\w+)Grpc\.(?P=service)ImplBase$"),
    "csharp": re.compile(r"(?:^|\.)(?P<service>\w+)\.(?P=service)Base$"),
}
# Bases read from a class's own base list; Python's follow its method resolution order.
_TYPED_BASES = frozenset({"go", "java", "csharp"})
_REGISTER: dict[str, re.Pattern[str]] = {
    "python": re.compile(r"(?:^|\.)(?:(?P<module>\w+)\.)?add_(?P<service>\w+)Servicer_to_server$"),
    "go": re.compile(r"(?:^|\.)Register(?P<service>\w+)Server$"),
}
# Node: the service a definition names (`proto.shop.Checkout.service`,
# `services.CheckoutService` of grpc-tools' `*_grpc_pb.js`).
_NODE_SERVICE = (
    re.compile(r"\.loadPackageDefinition\.(?P<path>[\w.]+)\.service$"),
    re.compile(r"(?P<module>\w+_grpc_pb)\.(?P<service>\w+)Service$"),
)
_WRITTEN_SERVICE = re.compile(r"(?:^|\.)([A-Za-z_$][\w$]*)\.service$")
_GENERATED_SUFFIXES = ("_pb2_grpc", "_pb2", "_grpc_pb", "_pb")


# -- facts a file gives ---------------------------------------------------------------------
def rpc_facts(resolver: Resolver, ctx: Ctx, out: FileResolution) -> list[HttpFact]:
    """The rpc facts of one resolved file (see the module docstring)."""
    if ctx.language == "protobuf":
        return [
            HttpFact("rpc", "", e.name, e.line, _symbol_id(ctx, e.symbol, e.line))
            for e in ctx.facts.endpoints
            if e.kind == "rpc"
        ]
    family = "ecma" if ctx.language in ECMA_LANGUAGES else ctx.language
    if family not in _STUBS:
        return []
    facts: list[HttpFact] = []
    for ref, rows in out.sites:
        for row in rows:
            external = _external(row)
            if external is None:
                continue
            if ref.kind == "call":
                facts += _stub(family, external, row.source, ref.line)
                facts += _registration(resolver, ctx, family, external, ref)
            elif ref.kind in ("inherit", "implement") and family in _TYPED_BASES:
                facts += _servicer(resolver, ctx, family, external, row.source, ref.line)
    if family == "python":
        facts += _python_servicers(resolver, ctx)
    return list(dict.fromkeys(facts))


def _python_servicers(resolver: Resolver, ctx: Ctx) -> list[HttpFact]:
    """Classes whose method resolution order leads to the generated servicer, directly
    or through classes of the workspace (`class Dummy(Base)`, `class Base(XServicer)`):
    each method they have, their own or inherited, at the class's line."""
    out: list[HttpFact] = []
    for cls in ctx.symbols:
        facts = ctx.facts.classes.get(cls.qualified_name) if cls.kind == "class" else None
        if facts is None:
            continue
        _, first = resolver.linearize(cls)
        found = (
            _BASES["python"].search(first.name)
            if first is not None and first.kind == "ext"
            else None
        )
        if found is None:
            continue
        line = ctx.facts.scopes[facts.scope].line
        module = found.groupdict().get("module") or ""
        out += [
            HttpFact(
                "serve", SERVICER[0], f"{found['service']}/{m.name}", line, m.id, router=module
            )
            for m in _methods(resolver, cls)
        ]
    return out


def _external(row: Edge) -> str | None:
    """The dotted name outside the workspace an edge reaches, if it does."""
    if row.resolved or row.via != "external" or not row.target.startswith("?"):
        return None
    return row.target[1:]


def _stub(family: str, external: str, source: str, line: int) -> list[HttpFact]:
    for pattern in _STUBS[family]:
        found = pattern.search(external)
        if found is None:
            continue
        groups = found.groupdict()
        service = groups.get("service") or groups.get("path") or ""
        module = groups.get("module") or ""
        return [
            HttpFact("stub", STUB[0], f"{service}/{groups['method']}", line, source, router=module)
        ]
    return []


def _servicer(
    resolver: Resolver, ctx: Ctx, family: str, external: str, source: str, line: int
) -> list[HttpFact]:
    """A class extending the generated base of a service: each of its methods."""
    found = _BASES[family].search(external)
    cls = _symbol_by_id(ctx, source)
    if found is None or cls is None:
        return []
    module = found.groupdict().get("module") or ""
    return [
        HttpFact("serve", SERVICER[0], f"{found['service']}/{m.name}", line, m.id, router=module)
        for m in _methods(resolver, cls)
    ]


def _registration(
    resolver: Resolver, ctx: Ctx, family: str, external: str, ref: Ref
) -> list[HttpFact]:
    """A server registering the implementation of a service."""
    if family == "ecma":
        return (
            _node_registration(resolver, ctx, external, ref)
            if external.endswith(".addService")
            else []
        )
    pattern = _REGISTER.get(family)
    found = pattern.search(external) if pattern is not None else None
    if found is None or not ref.values:
        return []
    positional = [value for key, value in ref.values if not key]
    # Python: add_XServicer_to_server(servicer, server); Go: RegisterXServer(server, impl)
    held = positional[0] if family == "python" else positional[1] if len(positional) > 1 else ""
    if not held:
        return []
    cls = _instance_type(resolver, ctx, held, ref)
    if cls is None:
        return []
    module = found.groupdict().get("module") or ""
    return [
        HttpFact(
            "serve", REGISTERED[0], f"{found['service']}/{m.name}", ref.line, m.id, router=module
        )
        for m in _methods(resolver, cls)
    ]


def _node_registration(resolver: Resolver, ctx: Ctx, external: str, ref: Ref) -> list[HttpFact]:
    """`server.addService(proto.shop.Checkout.service, {placeOrder: impl, getOrder})`."""
    values = ref.values or []
    first = next((v for k, v in values if not k), "")
    if not first.startswith("expr:"):
        return []
    service = ""
    module = ""
    held = resolver.eval_chain(ctx, first[5:], ref.scope, ref.line, 0)
    for alt in held.each:
        if alt.kind != "ext":
            continue
        for pattern in _NODE_SERVICE:
            found = pattern.search(alt.name)
            if found is not None:
                groups = found.groupdict()
                service = groups.get("path") or groups.get("service") or ""
                module = groups.get("module") or ""
                break
    if not service:
        # `shopProto.CurrencyService.service` where `shopProto` could not be read (a
        # helper returning loadPackageDefinition(…)): the service as written
        written = _WRITTEN_SERVICE.search(first[5:])
        service = written.group(1) if written is not None else ""
    if not service:
        return []
    out: list[HttpFact] = []
    for key, value in values:
        slot, _, method = key.partition(".")
        if slot != "1" or not method or "." in method or not value.startswith("expr:"):
            continue
        chain = value[5:].removesuffix(".bind()")
        found_value = resolver.eval_chain(ctx, chain, ref.scope, ref.line, 0)
        for alt in found_value.each:
            if alt.kind == "sym" and alt.sym is not None and alt.sym.kind in _METHOD_KINDS:
                out.append(
                    HttpFact(
                        "serve",
                        REGISTERED[0],
                        f"{service}/{method}",
                        ref.line,
                        alt.sym.id,
                        router=module,
                    )  # fmt: skip
                )
    return out


def _instance_type(resolver: Resolver, ctx: Ctx, held: str, ref: Ref) -> SymbolRecord | None:
    """The class of the workspace a registered value is an instance of."""
    if ctx.language in DEEP_LANGUAGES:
        if not held.startswith("expr:"):
            return None
        value = resolver.eval_chain(ctx, held[5:], ref.scope, ref.line, 0)
        for alt in value.each:
            if alt.kind in ("inst", "sym") and alt.sym is not None and alt.sym.kind == "class":
                return alt.sym
        return None
    return typed_instance(resolver, ctx, held, ref.scope, ref.line)


def _methods(resolver: Resolver, cls: SymbolRecord) -> list[SymbolRecord]:
    """A class's methods: in Python its own and those it inherits from classes of the
    workspace (the first definition of a name wins); a Go type's, from every file of
    its package; elsewhere its own."""
    if cls.path.endswith((".py", ".pyi")):
        order, _ = resolver.linearize(cls)
        seen: dict[str, SymbolRecord] = {}
        for owner in order:
            for method in _own_methods(resolver, owner, [owner.path]):
                seen.setdefault(method.name, method)
        return list(seen.values())
    if cls.path.endswith(".go"):
        folder = posixpath.dirname(cls.path)
        paths = sorted(
            p
            for p in resolver.index.repo_files(cls.repo)
            if posixpath.dirname(p) == folder and p.endswith(".go") and not p.endswith("_test.go")
        )
    else:
        paths = [cls.path]
    return _own_methods(resolver, cls, paths)


def _own_methods(resolver: Resolver, cls: SymbolRecord, paths: list[str]) -> list[SymbolRecord]:
    prefix = cls.qualified_name + "."
    return [
        s
        for path in paths
        for s in resolver.index.symbols(cls.repo, path)
        if s.kind == "method"
        and s.qualified_name.startswith(prefix)
        and "." not in s.qualified_name[len(prefix) :]
        and not s.name.startswith("_")
    ]


def _symbol_id(ctx: Ctx, qualified: str, line: int) -> str:
    found = ctx.symbol(qualified, line)
    return found.id if found is not None else f"{ctx.file_id}#{qualified}"


def _symbol_by_id(ctx: Ctx, node: str) -> SymbolRecord | None:
    return next((s for s in ctx.symbols if s.id == node), None)


# -- linking --------------------------------------------------------------------------------
def rpc_id(full: str) -> str:
    return f"{RPC_PREFIX}{full}"


class _Declared:
    """The rpcs the workspace's `.proto` files declare, by service and method."""

    def __init__(self, facts: Sequence[HttpFact]) -> None:
        self.by_key: dict[tuple[str, str], dict[str, list[HttpFact]]] = {}
        for f in facts:
            if f.role != "rpc" or "/" not in f.pattern:
                continue
            service, method = _split(f.pattern)
            names = self.by_key.setdefault((service.rpartition(".")[2], method.lower()), {})
            names.setdefault(f.pattern, []).append(f)

    def rpcs(self, fact: HttpFact) -> list[tuple[str, float, str]]:
        """(full name, confidence, via) of each rpc a server or stub fact may mean."""
        service, method = _split(fact.pattern)
        package, _, name = service.rpartition(".")
        found = self.by_key.get((name, method.lower()), {})
        names = sorted(n for n in found if not package or _split(n)[0] == service)
        if len(names) > 1 and fact.router:
            base = _module_base(fact.router)
            hinted = [n for n in names if any(_proto_base(d.path) == base for d in found[n])]
            names = hinted or names
        if not names or len(names) > MAX_PACKAGES:
            return []
        if len(names) == 1:
            return [(names[0], _confidence(fact.method), fact.method)]
        return [(n, round(min(0.4, 0.8 / len(names)), 4), AMBIGUOUS) for n in names]

    def declaration(self, full: str, repo: str) -> HttpFact:
        """Where an rpc is declared: the copy in `repo` first."""
        service, method = _split(full)
        copies = self.by_key[(service.rpartition(".")[2], method.lower())][full]
        return min(copies, key=lambda d: (d.repo != repo, d.repo, d.path, d.line))


def link_rpc(
    facts: Sequence[HttpFact], methods: Sequence[SymbolRecord] = ()
) -> dict[tuple[str, str], list[Edge]]:
    """`serves` and `rpc` edges of the workspace, by owning file. `methods` are the
    implementing methods the serve facts name: the server's side of a link is the
    method's own line (in its own file) when it is among them, else the fact's line."""
    declared = _Declared(facts)
    if not declared.by_key:
        return {}
    at = {m.id: (m.repo, m.path, m.start_line) for m in methods}
    facts = [
        replace(f, repo=at[f.node][0], path=at[f.node][1], line=at[f.node][2])
        if f.role == "serve" and f.node in at
        else f
        for f in facts
    ]
    by_owner: dict[tuple[str, str], list[Edge]] = {}
    servers: dict[str, list[tuple[HttpFact, float, str]]] = {}  # rpc → implementations
    best: dict[tuple[str, str], tuple[HttpFact, float, str]] = {}
    for fact in (f for f in facts if f.role == "serve"):
        for full, confidence, via in declared.rpcs(fact):
            key = (fact.node, full)
            if key not in best or _rank(fact, confidence, via) < _rank(*best[key]):
                best[key] = (fact, confidence, via)
    for (node, full), (fact, confidence, via) in sorted(best.items()):
        servers.setdefault(full, []).append((fact, confidence, via))
        where = declared.declaration(full, fact.repo)
        by_owner.setdefault((fact.repo, fact.path), []).append(
            fact_edge("serves", node, rpc_id(full), full, confidence, via, fact.line, where)
        )
    seen: set[tuple[str, str, int]] = set()
    for fact in (f for f in facts if f.role == "stub"):
        for full, confidence, via in declared.rpcs(fact):
            for target, conf, how, other in _clients(fact, full, confidence, via, servers):
                if (fact.node, target, fact.line) in seen:
                    continue
                seen.add((fact.node, target, fact.line))
                by_owner.setdefault((fact.repo, fact.path), []).append(
                    fact_edge("rpc", fact.node, target, full, conf, how, fact.line, other)
                )
            if not any(s.node != fact.node for s, _, _ in servers.get(full, [])):
                where = declared.declaration(full, fact.repo)
                if (fact.node, rpc_id(full), fact.line) not in seen:
                    seen.add((fact.node, rpc_id(full), fact.line))
                    by_owner.setdefault((fact.repo, fact.path), []).append(
                        fact_edge(
                            "rpc", fact.node, rpc_id(full), full, confidence, via, fact.line, where
                        )
                    )
    return by_owner


def _clients(
    stub: HttpFact,
    full: str,
    confidence: float,
    via: str,
    servers: dict[str, list[tuple[HttpFact, float, str]]],
) -> list[tuple[str, float, str, HttpFact]]:
    """(implementing method, confidence, via, its evidence) for each server of an rpc a
    stub calls: the weaker side's confidence and via (the stub's on a tie)."""
    return [
        (server.node, min(confidence, c), via if confidence <= c else v, server)
        for server, c, v in servers.get(full, [])
        if server.node != stub.node
    ]


def _rank(fact: HttpFact, confidence: float, via: str) -> tuple[float, int, str, str, int]:
    order = _VIA_ORDER.index(via) if via in _VIA_ORDER else len(_VIA_ORDER)
    return (-confidence, order, fact.repo, fact.path, fact.line)


def _confidence(via: str) -> float:
    return {SERVICER[0]: SERVICER[1], REGISTERED[0]: REGISTERED[1]}.get(via, STUB[1])


def _split(pattern: str) -> tuple[str, str]:
    service, _, method = pattern.rpartition("/")
    return service, method


def _proto_base(path: str) -> str:
    return posixpath.basename(path).removesuffix(".proto").lower()


def _module_base(module: str) -> str:
    name = module.rpartition(".")[2].lower()
    for suffix in _GENERATED_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name
