"""The graph API on the Python fixture: find symbols, walk both ways, cut subgraphs,
and the repository overview."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from codecompass.engine import Engine
from codecompass.errors import InputError, NotFoundError
from codecompass.schemas import GraphResult, Overview
from tests.graph.helpers import add_fixture, workspace, write

P = "shop/shop"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    tmp = tmp_path_factory.mktemp("api")
    with workspace(tmp) as e:
        add_fixture(e, tmp, "python", "shop")
        yield e


def shown(result: GraphResult) -> list[tuple[str, str, str, float, str]]:
    """A walk's edges as (source, target, type, confidence, via), names without paths."""
    return [
        (e.source.split("#")[1], e.target.split("#")[1], e.type, e.confidence, e.via)
        for e in result.edges
    ]


def test_find_symbol_exact_first_then_fuzzy(engine: Engine) -> None:
    exact = engine.find_symbol("OrderService.place")
    assert (exact[0].id, exact[0].score, exact[0].exact) == (
        f"{P}/service.py#OrderService.place",
        1.0,
        True,
    )
    by_name = engine.find_symbol("notify")
    assert [(m.id, m.score, m.exact) for m in by_name[:2]] == [
        (f"{P}/util.py#Mailer.notify", 0.95, True),
        (f"{P}/util.py#Pager.notify", 0.95, True),
    ]
    assert [(m.id, m.exact) for m in by_name[2:3]] == [
        (f"{P}/service.py#OrderService._notify", False)
    ]
    assert all(m.score < 0.8 for m in by_name[2:])
    fuzzy = engine.find_symbol("Custmer")
    assert fuzzy[0].qualified_name == "Customer" and not fuzzy[0].exact
    assert 0 < fuzzy[0].score < 0.8
    assert [m.kind for m in engine.find_symbol("Order", kind="class")] == ["class", "class"]
    assert engine.find_symbol("Order", repo="shop")[0].id == f"{P}/models.py#Order"


def test_symbol_arguments_and_their_errors(engine: Engine) -> None:
    graph = engine.graph
    assert graph.resolve_node("place") == f"{P}/service.py#OrderService.place"
    assert graph.resolve_node(f"{P}/models.py") == f"{P}/models.py"
    assert graph.resolve_node("shop/models.py") == f"{P}/models.py"
    with pytest.raises(InputError, match="'notify' is ambiguous; 2 symbols match") as info:
        engine.callers("notify")
    assert f"{P}/util.py#Pager.notify" in str(info.value)
    with pytest.raises(NotFoundError, match="Unknown symbol 'nothing_here'") as missing:
        engine.dependencies("nothing_here")
    assert missing.value.for_cli().endswith("`codecompass symbol nothing_here`.")
    assert missing.value.for_mcp().endswith("find_symbol (name='nothing_here').")
    with pytest.raises(InputError, match="Unknown edge type"):
        engine.dependencies("place", types=["friends"])


def test_dependencies_with_confidence_filter(engine: Engine) -> None:
    result = engine.dependencies("OrderService._notify")
    assert {(e.target, e.confidence, e.evidence_line, e.resolved) for e in result.edges} == {
        (f"{P}/util.py#Mailer.notify", 0.4, 27, True),
        (f"{P}/util.py#Pager.notify", 0.4, 27, True),
    }
    assert engine.dependencies("OrderService._notify", min_confidence=0.5).edges == []
    calls = engine.dependencies("place", types=["calls"], min_confidence=0.8)
    assert sorted(e.target for e in calls.edges) == sorted(
        [
            f"{P}/models.py#Order",
            f"{P}/models.py#Entity.save",
            f"{P}/repository.py#Repository.add",
            f"{P}/service.py#OrderService._notify",
            f"{P}/util.py#render",
            f"{P}/models.py#Customer",
            f"{P}/models.py#Customer.orders",
            "?logging.getLogger.info",
        ]
    )
    unresolved = [n for n in calls.nodes if n.kind == "unresolved"]
    assert [(n.id, n.name, n.repo) for n in unresolved] == [
        ("?logging.getLogger.info", "logging.getLogger.info", None)
    ]


def test_callers_and_two_hop_paths(engine: Engine) -> None:
    callers = engine.callers("Entity.save")
    assert {(e.source, e.evidence_path, e.evidence_line) for e in callers.edges} == {
        (f"{P}/repository.py#Repository.add", "shop/repository.py", 8),
        (f"{P}/service.py#OrderService.place", "shop/service.py", 17),
    }
    two = engine.callers("Entity.validate", depth=2)
    assert sorted(two.paths) == sorted(
        [
            [f"{P}/models.py#Entity.validate", f"{P}/models.py#Entity.save"],
            [
                f"{P}/models.py#Entity.validate",
                f"{P}/models.py#Entity.save",
                f"{P}/repository.py#Repository.add",
            ],
            [
                f"{P}/models.py#Entity.validate",
                f"{P}/models.py#Entity.save",
                f"{P}/service.py#OrderService.place",
            ],
        ]
    )


def test_traverse_both_ways_with_a_cap(engine: Engine) -> None:
    result = engine.traverse("Entity", depth=1, direction="both", types=["extends", "contains"])
    assert {n.id for n in result.nodes} == {
        f"{P}/models.py#Entity",
        f"{P}/models.py",
        f"{P}/models.py#Entity.save",
        f"{P}/models.py#Entity.validate",
        f"{P}/models.py#Order",
        f"{P}/models.py#Customer",
    }
    capped = engine.traverse("Entity", depth=1, direction="both", types=["extends"], limit=2)
    assert len(capped.nodes) == 2 and capped.truncated
    with pytest.raises(InputError, match="direction"):
        engine.traverse("Entity", direction="sideways")


def test_subgraph_keeps_edges_between_the_nodes(engine: Engine) -> None:
    result = engine.subgraph(
        ["Entity", f"{P}/models.py#Order", f"{P}/models.py#Customer", "Customer.orders"]
    )
    assert {(e.source, e.target, e.type) for e in result.edges} == {
        (f"{P}/models.py#Order", f"{P}/models.py#Entity", "extends"),
        (f"{P}/models.py#Customer", f"{P}/models.py#Entity", "extends"),
        (f"{P}/models.py#Customer", f"{P}/models.py#Customer.orders", "contains"),
        (f"{P}/models.py#Customer.orders", f"{P}/models.py#Order", "references"),
        (f"{P}/models.py#Customer.orders", f"{P}/models.py#Order", "calls"),
    }
    assert engine.subgraph(["Entity", "Order", "Customer"], limit=2).truncated


def _overview(tmp_path: Path, files: dict[str, str]) -> Overview:
    """The 2,000-token map of one repository holding `files`."""
    write(tmp_path / "lib", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "lib", name="lib")
        return engine.repo_overview(budget_tokens=2000)


def test_importance_and_overview(engine: Engine) -> None:
    nodes = {n.id: n for n in engine.traverse("Entity", depth=1, direction="in").nodes}
    assert nodes[f"{P}/models.py#Entity"].importance > nodes[f"{P}/models.py#Order"].importance
    overview = engine.repo_overview(budget_tokens=2000)
    assert overview.repo == "shop"
    assert overview.files[0].path == "shop/models.py"
    assert [f.path for f in overview.files] == sorted(
        (f.path for f in overview.files),
        key=lambda p: -next(f.importance for f in overview.files if f.path == p),
    )
    assert "  class Entity  :4" in overview.text
    assert overview.tokens <= 2000
    small = engine.repo_overview(budget_tokens=60)
    assert len(small.files) == 1 and small.tokens <= 60
    assert engine.repo_overview(budget_tokens=50).tokens == 50  # the least allowed holds too


def test_an_exported_binding_a_factory_makes_is_a_symbol_its_callers_reach(
    tmp_path: Path,
) -> None:
    """zod's `export const safeParse = core._safeParse(ZodRealError)`: `callers
    safeParse` found a benchmark's local function, the API itself was no symbol."""
    parse = (
        "import * as core from './core.js';\n\n"
        "export const safeParse = /* @__PURE__ */ core._safeParse(Error) as any;\n"
        "const helper = core.make();\n"
        "export const VERSION = '4.0';\n"
    )
    use = (
        "import { safeParse } from './parse.js';\n\n"
        "export function check(value: unknown): boolean {\n"
        "  return safeParse(value).success;\n}\n"
    )
    core = "export function _safeParse(err: unknown) {\n  return (v: unknown) => v;\n}\n"
    write(tmp_path / "lib", {"src/parse.ts": parse, "src/use.ts": use, "src/core.ts": core})
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "lib", name="lib")
        (found,) = engine.find_symbol("safeParse")[:1]
        callers = engine.callers("safeParse")
        helper = engine.find_symbol("helper")
    assert (found.id, found.kind, found.signature) == (
        "lib/src/parse.ts#safeParse",
        "constant",
        "export const safeParse = core._safeParse(Error) as any",
    )
    assert [(e.source, e.target) for e in callers.edges] == [
        ("lib/src/use.ts#check", "lib/src/parse.ts#safeParse")
    ]
    # A module's own unexported binding stays out.
    assert all(m.name != "helper" for m in helper)


def test_an_exported_binding_to_a_member_or_another_name_is_a_symbol(tmp_path: Path) -> None:
    """Every tRPC app's `trpc.ts` exports `router = t.router` and `publicProcedure =
    t.procedure`; a library keeps an old name as `createTRPCProxyClient =
    createTRPCClient`. Only bindings a call made were symbols, so `symbol publicProcedure`
    found none of these."""
    trpc = (
        "import { initTRPC } from '@trpc/server';\n\n"
        "const t = initTRPC.create();\n"
        "export const router = t.router;\n"
        "export const publicProcedure = t.procedure;\n"
        "const middleware = t.middleware;\n"
    )
    client = (
        "export function createTRPCClient(url: string) {\n  return { url };\n}\n"
        "/** @deprecated use createTRPCClient */\n"
        "export const createTRPCProxyClient = createTRPCClient;\n"
    )
    app = (
        "import { router, publicProcedure } from './trpc';\n\n"
        "export const appRouter = router({ hello: publicProcedure });\n"
    )
    files = {"src/trpc.ts": trpc, "src/client.ts": client, "src/app.ts": app}
    write(tmp_path / "lib", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "lib", name="lib")
        found = {
            name: [(m.id, m.kind, m.signature) for m in engine.find_symbol(name) if m.exact]
            for name in ("router", "publicProcedure", "createTRPCProxyClient", "middleware")
        }
        callers = engine.callers("router")
    assert found == {
        "router": [("lib/src/trpc.ts#router", "constant", "export const router = t.router")],
        "publicProcedure": [
            (
                "lib/src/trpc.ts#publicProcedure",
                "constant",
                "export const publicProcedure = t.procedure",
            )
        ],
        "createTRPCProxyClient": [
            (
                "lib/src/client.ts#createTRPCProxyClient",
                "constant",
                "export const createTRPCProxyClient = createTRPCClient",
            )
        ],
        "middleware": [],  # a module's own unexported binding stays out
    }
    assert [(e.source, e.target) for e in callers.edges] == [
        ("lib/src/app.ts#appRouter", "lib/src/trpc.ts#router")
    ]


def test_the_overview_shows_code_before_files_of_types_alone(tmp_path: Path) -> None:
    """Every file of ky references `types/options.ts`, so its PageRank led the overview
    and its 2,000 tokens held type aliases only, never the class that sends requests."""
    types = (
        "export type Method = 'get' | 'post';\n\nexport interface Options {\n  method: Method;\n}\n"
    )
    client = (
        "import type {Options} from './types.js';\n\n"
        "export function send(options: Options): string {\n  return options.method;\n}\n"
    )
    index = (
        "import {send} from './client.js';\nimport type {Options} from './types.js';\n\n"
        "export function get(options: Options): string {\n  return send(options);\n}\n"
    )
    files = {"src/types.ts": types, "src/client.ts": client, "src/index.ts": index}
    overview = _overview(tmp_path, files)
    importance = {f.path: f.importance for f in overview.files}
    assert importance["src/types.ts"] == 1.0  # the most referenced
    assert [f.path for f in overview.files] == ["src/client.ts", "src/index.ts", "src/types.ts"]


def test_a_class_of_properties_alone_is_a_file_of_declarations(tmp_path: Path) -> None:
    """Ombi's map led with `Settings`, `IRequestModel.ts` and `OmbiUser`, classes of
    properties every file names, never an engine that does the work. A property with a
    body (`bool IsError => …`) reads as a method without parameters: no code either."""
    files = {
        "src/Settings.cs": (
            "public class Settings\n{\n    public int Id { get; set; }\n"
            "    public bool IsError => Id < 0;\n}\n"
        ),
        "src/Engine.cs": (
            "public class Engine\n{\n    public Settings Load()\n    {\n"
            "        return new Settings();\n    }\n}\n"
        ),
        "src/Other.cs": (
            "public class Other\n{\n    public Settings Read()\n    {\n"
            "        return new Settings();\n    }\n}\n"
        ),
    }
    overview = _overview(tmp_path, files)
    importance = {f.path: f.importance for f in overview.files}
    assert importance["src/Settings.cs"] == 1.0  # the most referenced
    assert [f.path for f in overview.files][-1] == "src/Settings.cs"


def test_an_interface_with_its_methods_is_a_file_of_types_alone(tmp_path: Path) -> None:
    """Slim's and MediatR's overviews listed only interface files (a C# or PHP interface's
    methods are signatures) until their budget ran out."""
    store = "package app;\n\npublic interface Store {\n    String get(String key);\n}\n"
    memory = (
        "package app;\n\npublic class MemoryStore implements Store {\n"
        "    public String get(String key) {\n        return key;\n    }\n}\n"
    )
    client = (
        "package app;\n\npublic class Client {\n    private Store store;\n\n"
        "    public String fetch(String key) {\n        return store.get(key);\n    }\n}\n"
    )
    files = {
        "src/app/Store.java": store,
        "src/app/MemoryStore.java": memory,
        "src/app/Client.java": client,
    }
    overview = _overview(tmp_path, files)
    importance = {f.path: f.importance for f in overview.files}
    assert importance["src/app/Store.java"] == 1.0
    assert [f.path for f in overview.files][-1] == "src/app/Store.java"


def test_the_overview_shows_the_project_before_its_examples(tmp_path: Path) -> None:
    """MediatR's sample handlers all use one message type, so `samples/…/Pong.cs` ranked
    tenth and the class that dispatches requests 43rd. A file of constants alone follows
    the code, before the examples."""
    examples = {
        f"examples/{name}.py": f"from examples.messages import Pong\n\ndef {name}():\n"
        "    return Pong()\n"
        for name in ("ping", "echo", "stream")
    }
    overview = _overview(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/mediator.py": "from pkg.version import VERSION\n\nclass Mediator:\n"
            "    def send(self, request):\n        return VERSION\n",
            # what every file names (sinatra's `version.rb` led its map): no code to read
            "pkg/version.py": 'VERSION = "1.0"\n',
            "examples/__init__.py": "",
            "examples/messages.py": "class Pong:\n    pass\n",
            **examples,
            "tests/test_mediator.py": "from pkg.mediator import Mediator\n\n"
            "def test_send():\n    assert Mediator().send(1) == '1.0'\n",
        },
    )
    importance = {f.path: f.importance for f in overview.files}
    assert importance["examples/messages.py"] > importance["pkg/mediator.py"]
    assert importance["pkg/version.py"] > importance["pkg/mediator.py"]
    assert [f.path for f in overview.files] == [
        "pkg/mediator.py",
        "pkg/version.py",
        # a class without methods holds data alone (Ombi's map led with its `Settings`)
        "examples/echo.py",
        "examples/ping.py",
        "examples/stream.py",
        "examples/messages.py",
        "tests/test_mediator.py",
    ]


def test_a_walk_says_when_the_calls_of_its_language_are_not_read(tmp_path: Path) -> None:
    """Plug's `callers Plug.Conn.put_resp_header` answered "(none)" when Elixir calls were
    not read, so nobody seemed to call it. SQL's calls are still not read."""
    sql = (
        "CREATE FUNCTION order_count(uid BIGINT) RETURNS BIGINT AS $$\n"
        "    SELECT COUNT(*) FROM orders WHERE user_id = uid;\n$$ LANGUAGE SQL;\n\n"
        "SELECT order_count(1);\n"
    )
    python = (
        "def total(items):\n    return sum(items)\n\n\n"
        "def checkout(items):\n    return total(items)\n"
    )
    write(tmp_path / "mixed", {"db/report.sql": sql, "py/cart.py": python, "README.md": "# Cart\n"})
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "mixed", name="mixed")
        unread = engine.callers("order_count")
        read = engine.callers("cart.total")
        no_calls = engine.dependents("order_count", types=["contains"])
        readme = engine.callers("mixed/README.md")
    assert unread.edges == []
    assert unread.limits == [
        "calls are not read from sql files yet: the calls of and to order_count in "
        "sql code are unknown, not absent; search for its name to find where it is used"
    ]
    assert [e.source for e in read.edges] == ["mixed/py/cart.py#checkout"]
    assert read.limits == []
    assert no_calls.limits == []  # a walk along other edges misses nothing
    assert readme.limits == []  # a document calls nothing


def test_an_overlong_symbol_name_is_refused_naming_the_limit(engine: Engine) -> None:
    # 60,000 characters once reached SQLite as a LIKE pattern: "pattern too complex".
    huge = "x" * 60_000
    for call in (engine.find_symbol, engine.dependencies, engine.callers):
        with pytest.raises(InputError, match=r"60000 characters long; the limit is 2000") as info:
            call(huge)
        assert "\n" not in str(info.value)
    # A long but allowed name is looked up and simply not found.
    assert engine.find_symbol("x" * 2000) == []
    assert engine.find_symbol("Order%." * 280 + "_" * 40) == []  # long suffix, wildcards


def test_callers_of_a_method_include_those_calling_it_through_its_interface(
    tmp_path: Path,
) -> None:
    """MediatR's code calls `ISender.Send`: `callers Mediator.Send` found one caller. A
    caller of the declaration a method implements may run it; a base's constructor is
    not the subclass's."""
    java = {
        "src/ISender.java": "interface ISender {\n    int send(int request);\n}\n",
        "src/Mediator.java": (
            "class Mediator implements ISender {\n"
            "    Mediator() {}\n\n"
            "    public int send(int request) {\n        return request;\n    }\n}\n"
        ),
        "src/Runner.java": (
            "class Runner {\n    private ISender sender;\n\n"
            "    int run() {\n        return sender.send(1);\n    }\n}\n"
        ),
    }
    python = (
        "class Base:\n    def __init__(self):\n        pass\n\n"
        "    def save(self):\n        pass\n\n\n"
        "class Child(Base):\n    def __init__(self):\n        super().__init__()\n\n"
        "    def save(self):\n        pass\n\n\n"
        "def store(item: Base):\n    item.save()\n\n\n"
        "def build():\n    return Base()\n"
    )
    write(tmp_path / "app", {**java, "py/models.py": python})
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "app", name="app")
        send = engine.callers("Mediator.send")
        strict = engine.callers("Mediator.send", min_confidence=0.9)
        save = engine.callers("Child.save")
        init = engine.callers("Child.__init__")
        deps = engine.dependencies("Mediator.send")
        runs = engine.dependencies("Runner.run")

    assert shown(send) == [
        ("Mediator.send", "ISender.send", "implements", 1.0, "dispatch"),
        ("Runner.run", "ISender.send", "calls", 0.8, "member"),
    ]
    assert [p[-1].split("#")[1] for p in send.paths] == ["ISender.send", "Runner.run"]
    assert shown(strict) == [("Mediator.send", "ISender.send", "implements", 1.0, "dispatch")]
    assert shown(save) == [
        ("Child.save", "Base.save", "implements", 1.0, "dispatch"),
        ("store", "Base.save", "calls", 0.8, "member"),
    ]
    assert shown(init) == []  # Base() and super().__init__() build a Base
    assert shown(deps) == []  # only a walk to callers climbs to the declarations
    # A walk to what a call runs descends from an interface's method to its implementations.
    assert shown(runs) == [
        ("Runner.run", "ISender.send", "calls", 0.8, "member"),
        ("Mediator.send", "ISender.send", "implements", 1.0, "dispatch"),
    ]
    assert runs.limits == []


def test_a_walk_to_what_a_call_runs_shows_ten_implementations_and_counts_the_rest(
    tmp_path: Path,
) -> None:
    impls = "".join(
        f"class Handler{n:02d} implements Handler {{\n    public int handle(int r) {{\n"
        "        return r;\n    }\n}\n\n"
        for n in range(12)
    )
    files = {
        "src/Handler.java": "interface Handler {\n    int handle(int request);\n}\n",
        "src/Handlers.java": impls,
        "src/Bus.java": (
            "class Bus {\n    private Handler handler;\n\n"
            "    int dispatch() {\n        return handler.handle(1);\n    }\n}\n"
        ),
    }
    write(tmp_path / "bus", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "bus", name="bus")
        runs = engine.dependencies("Bus.dispatch")
    dispatched = [e.source.split("#")[1] for e in runs.edges if e.via == "dispatch"]
    assert dispatched == [f"Handler{n:02d}.handle" for n in range(10)]
    assert runs.limits == [
        "2 more implementations of Handler.handle are not shown; the types implementing "
        "Handler are the `implements` edges into it"
    ]


def test_the_overview_cuts_a_long_parameter_list_and_keeps_the_return_type(
    tmp_path: Path,
) -> None:
    """astroid's `InferenceError.__init__` has 20 parameters: 900 characters of a 2,000
    token map. The JSON keeps the whole signature."""
    params = ", ".join(f"option_{n}: int | None = None" for n in range(20))
    overview = _overview(tmp_path, {"errors.py": f"def build({params}) -> str:\n    return ''\n"})
    (symbol,) = overview.files[0].symbols
    assert symbol.signature == f"def build({params}) -> str"
    line = next(x for x in overview.text.splitlines() if "def build(" in x)
    shown = line.strip().removesuffix("  :1")
    assert shown == f"def build({params}"[:151].rstrip() + "…) -> str"
    assert len(shown) == 160


def test_the_overview_names_the_type_of_a_method_defined_outside_it(tmp_path: Path) -> None:
    """tracing's map listed `fn parse(input: ParseStream<'_>)` four times: a Rust `impl`
    method carries no parent, and its signature no type. A Go method's receiver says it."""
    rust = (
        "pub struct Args {\n    level: u8,\n}\n\n"
        "impl Parse for Args {\n    fn parse(input: Stream) -> Result<Self> {\n"
        "        todo!()\n    }\n}\n"
    )
    go = (
        "package store\n\ntype Store struct{}\n\n"
        "func (s *Store) Get(key string) string {\n\treturn key\n}\n"
    )
    # AFNetworking's `- (AFURLSessionManagerTaskDelegate *)delegateForTask:…` was shown
    # without its class `AFURLSessionManager`, a prefix of the type it returns.
    objc = (
        "@implementation Manager\n\n"
        "- (ManagerDelegate *)delegateForTask:(Task *)task {\n    return nil;\n}\n\n@end\n"
    )
    files = {"src/args.rs": rust, "store.go": go, "Manager.m": objc}
    lines = [line.strip() for line in _overview(tmp_path, files).text.splitlines()]
    assert "Args: fn parse(input: Stream) -> Result<Self>  :6" in lines
    assert "func (s *Store) Get(key string) string  :5" in lines
    assert "Manager: - (ManagerDelegate *)delegateForTask:(Task *)task  :3" in lines


def test_the_overview_lists_a_name_once_with_its_namesakes_counted(tmp_path: Path) -> None:
    """Serilog's `Log` class has 11 overloads of `Write` and 10 of each level method:
    they filled its ten lines. spdlog's map gave two lines to each macro defined in both
    branches of an `#if`."""
    java = (
        "class Log {\n"
        "    void write(int level) {}\n"
        "    void write(String text) {}\n"
        "    void write(long stamp, String text) {}\n"
        "    void flush() {}\n"
        "}\n"
    )
    c = (
        "#ifdef DEBUG\n#define TRACE(x) print(x)\n#else\n#define TRACE(x)\n#endif\n"
        "int run(void) { return 0; }\n"
    )
    overview = _overview(tmp_path, {"Log.java": java, "trace.h": c})
    listed = {f.path: [(s.name, s.line, s.namesakes) for s in f.symbols] for f in overview.files}
    assert listed["Log.java"] == [("Log", 1, 0), ("Log.write", 2, 2), ("Log.flush", 5, 0)]
    assert listed["trace.h"] == [("TRACE", 2, 1), ("run", 6, 0)]
    lines = [line.strip() for line in overview.text.splitlines()]
    assert "void write(int level)  :2  (+2 more of this name)" in lines
    assert "#define TRACE(x)  :2  (+1 more of this name)" in lines


def test_the_overview_indents_a_symbol_by_what_encloses_it(tmp_path: Path) -> None:
    """Phoenix's map indented `def from_map!` under `defmodule Phoenix.Socket.Message` by
    eight spaces: the dots of a module's own name were counted as nesting."""
    elixir = (
        "defmodule Phoenix.Socket.Message do\n"
        "  def from_map!(map) do\n    map\n  end\n\n"
        "  defimpl Inspect do\n    def inspect(msg, opts) do\n      msg\n    end\n  end\n"
        "end\n"
    )
    text = _overview(tmp_path, {"lib/message.ex": elixir}).text
    listed = text.split("lib/message.ex", 1)[1].splitlines()[1:]
    assert listed == [
        "  defmodule Phoenix.Socket.Message  :1",
        "    def from_map!(map)  :2",
        "    defimpl Inspect  :6",
        "      def inspect(msg, opts)  :7",
    ]


def test_an_exported_object_literal_is_a_symbol_its_users_reach(tmp_path: Path) -> None:
    """taxonomy: 18 of its 32 `export const` were no symbols (`authOptions`,
    `siteConfig`, every `metadata`), and `callers authOptions` answered "Unknown symbol…
    Closest: PostOperations"."""
    auth = (
        "import GitHubProvider from 'next-auth/providers/github';\n\n"
        "export const authOptions: NextAuthOptions = {\n"
        "  providers: [GitHubProvider({})],\n"
        "};\n"
        "const local = { debug: true };\n"
    )
    route = (
        "import NextAuth from 'next-auth';\nimport { authOptions } from '../lib/auth';\n\n"
        "export function handler() {\n  return NextAuth(authOptions);\n}\n"
    )
    write(tmp_path / "web", {"lib/auth.ts": auth, "app/route.ts": route})
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "web", name="web")
        found = [(m.id, m.kind, m.exact) for m in engine.find_symbol("authOptions")][:1]
        local = [m for m in engine.find_symbol("local") if m.exact]
        users = {(e.source, e.type) for e in engine.dependents("authOptions").edges}
    assert found == [("web/lib/auth.ts#authOptions", "constant", True)]
    assert local == []  # a module's own object stays out
    assert ("web/app/route.ts", "imports") in users


def test_callers_of_a_function_include_the_code_passing_it_as_a_value(tmp_path: Path) -> None:
    """spring-petclinic: `callers Pet.setType` listed only a test, though `PetResource
    .save` passes it on (`.ifPresent(pet::setType)`); `graph --direction in` showed it.
    A mention in a doc comment is no caller."""
    files = {
        "src/Pet.java": ("class Pet {\n    void setType(String t) { }\n}\n"),
        "src/PetResource.java": (
            "class PetResource {\n"
            "    /** Saves; see {@link Pet#setType}. */\n"
            "    void save(Pet pet, java.util.Optional<String> type) {\n"
            "        type.ifPresent(pet::setType);\n    }\n}\n"
        ),
    }
    write(tmp_path / "app", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "app", name="app")
        found = engine.callers("Pet.setType")
    assert [(e.source, e.type, e.via, e.evidence_line) for e in found.edges] == [
        ("app/src/PetResource.java#PetResource.save", "references", "value", 4)
    ]


def test_dependencies_of_a_function_include_what_its_nested_functions_call(
    tmp_path: Path,
) -> None:
    """Umami: `get_dependencies DownloadButton` never listed `downloadCsv`, which the
    component's own `const handleClick = async () => …` calls: the walk did not enter a
    function's nested functions. They join the walk at the function's level (through
    their `contains` edge); a class's methods do not."""
    files = {
        "src/csv.ts": "export function downloadCsv(rows: string[]) {\n  return rows.join();\n}\n",
        "src/DownloadButton.tsx": (
            "import { downloadCsv } from './csv';\n\n"
            "export function DownloadButton({ rows }: { rows: string[] }) {\n"
            "  const handleClick = async () => {\n"
            "    downloadCsv(rows);\n"
            "  };\n"
            "  return <button onClick={handleClick}>Download</button>;\n"
            "}\n"
        ),
        "tools.py": (
            "def parse(text):\n    return text.split()\n\n\n"
            "def load(path):\n"
            "    def read():\n"
            "        return parse(open(path).read())\n"
            "    return read()\n\n\n"
            "class Loader:\n"
            "    def run(self):\n        return load('x')\n"
        ),
    }
    write(tmp_path / "app", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "app", name="app")
        button = engine.dependencies("DownloadButton")
        loader = engine.dependencies("load")
        cls = engine.dependencies("Loader")
    assert ("DownloadButton", "DownloadButton.handleClick", "contains", 1.0, "contains") in shown(
        button
    )
    assert ("DownloadButton.handleClick", "downloadCsv", "calls", 1.0, "import") in shown(button)
    assert ("load.read", "parse", "calls", 1.0, "scope") in shown(loader)
    assert "load" not in {t for _, t, *_ in shown(cls)}  # Loader.run's call: a method's


def test_the_overview_names_the_routes_a_repository_serves(tmp_path: Path) -> None:
    """spring-petclinic's overview showed DTO records first and no controller: the
    routes a repository serves are its entry points, and the map now starts with them
    (the files that serve most routes first, each with its routes)."""
    app = (
        "from flask import Blueprint\n\n"
        "bp = Blueprint('items', __name__, url_prefix='/items')\n\n\n"
        "@bp.get('/<int:item_id>')\ndef show(item_id):\n    return str(item_id)\n\n\n"
        "@bp.post('/')\ndef create():\n    return ''\n"
    )
    health = (
        "from flask import Flask\n\napp = Flask(__name__)\n\n\n"
        "@app.get('/health')\ndef health():\n    return 'ok'\n"
    )
    files = {"shop/items.py": app, "shop/health.py": health, "shop/util.py": "def f():\n    pass\n"}
    overview = _overview(tmp_path, files)
    assert overview.text.split("\n")[1:5] == [
        "## Serves 3 HTTP routes",
        "shop/items.py: GET /items/{} show, POST /items create",
        "shop/health.py: GET /health health",
        "",
    ]


def test_a_call_of_an_abstract_method_runs_its_overrides(tmp_path: Path) -> None:
    """jsoup: `callers` of an enum constant's `read` found none (the calls reach the
    enum's abstract `read`), and a walk to what `op.apply(…)` runs stopped at the
    abstract method. A constant with a body extends its enum; an abstract method's
    overrides are what a call of it runs, as an interface's implementations are."""
    files = {
        "src/Op.java": (
            "enum Op {\n"
            "    PLUS {\n        int apply(int a, int b) {\n            return a + b;\n"
            "        }\n    },\n"
            "    MINUS {\n        int apply(int a, int b) {\n            return a - b;\n"
            "        }\n    },\n"
            "    ZERO;\n\n"
            "    abstract int apply(int a, int b);\n\n"
            "    static int run(Op op) {\n        return op.apply(1, 2);\n    }\n}\n"
        ),
        "src/Base.java": (
            "class Base {\n    void step() {}\n}\n\n"
            "class Child extends Base {\n    void step() {}\n}\n\n"
            "class User {\n    void go(Base b) {\n        b.step();\n    }\n}\n"
        ),
        "src/Shade.kt": (
            "enum class Shade {\n"
            "    DARK {\n        override fun tone() = 1\n    },\n"
            "    LIGHT;\n\n"
            "    open fun tone(): Int = 0\n}\n\n"
            "fun paint(shade: Shade): Int {\n    return shade.tone()\n}\n"
        ),
    }
    write(tmp_path / "ops", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "ops", name="ops")
        plus = engine.callers("Op.PLUS.apply")
        runs = engine.dependencies("Op.run")
        goes = engine.dependencies("User.go")
        dark = engine.callers("Shade.DARK.tone")

    assert shown(plus) == [
        ("Op.PLUS.apply", "Op.apply", "implements", 1.0, "dispatch"),
        ("Op.run", "Op.apply", "calls", 0.8, "member"),
    ]
    assert shown(runs) == [
        ("Op.run", "Op.apply", "calls", 0.8, "member"),
        ("Op.MINUS.apply", "Op.apply", "implements", 1.0, "dispatch"),
        ("Op.PLUS.apply", "Op.apply", "implements", 1.0, "dispatch"),
    ]
    assert shown(dark) == [
        ("Shade.DARK.tone", "Shade.tone", "implements", 0.7, "dispatch"),
        ("paint", "Shade.tone", "calls", 0.7, "member"),
    ]
    # A base method with a body runs itself: its overrides do not join a walk out.
    assert [e for e in shown(goes) if e[2] == "calls" or e[4] == "dispatch"] == [
        ("User.go", "Base.step", "calls", 0.8, "member")
    ]


def test_a_generic_base_is_its_class_and_super_is_no_caller_of_the_override(
    tmp_path: Path,
) -> None:
    """mealie: `class CredentialsProvider(AuthProvider[CredentialsRequest])` extended
    `?AuthProvider[]`, so `callers CredentialsProvider.authenticate` missed `get_token`,
    which calls it through `AuthProvider`. `LDAPProvider.authenticate` calling
    `super().authenticate()` was listed among its own callers."""
    source = (
        "from typing import Generic, TypeVar\n\n"
        "T = TypeVar('T')\n\n\n"
        "class AuthProvider(Generic[T]):\n"
        "    def authenticate(self) -> str:\n        raise NotImplementedError\n\n\n"
        "class CredentialsProvider(AuthProvider[str]):\n"
        "    def authenticate(self) -> str:\n        return 'ok'\n\n\n"
        "class LDAPProvider(CredentialsProvider):\n"
        "    def authenticate(self) -> str:\n        return super().authenticate()\n\n\n"
        "def get_token(provider: AuthProvider[str]) -> str:\n"
        "    return provider.authenticate()\n"
    )
    write(tmp_path / "auth", {"auth/providers.py": source})
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "auth", name="auth")
        credentials = engine.callers("CredentialsProvider.authenticate")
        ldap = engine.callers("LDAPProvider.authenticate")

    assert [(s, t, kind, via) for s, t, kind, _, via in shown(credentials)] == [
        ("CredentialsProvider.authenticate", "AuthProvider.authenticate", "implements", "dispatch"),
        ("LDAPProvider.authenticate", "CredentialsProvider.authenticate", "calls", "super"),
        ("get_token", "AuthProvider.authenticate", "calls", "member"),
    ]
    assert [(s, t, kind, via) for s, t, kind, _, via in shown(ldap)] == [
        ("LDAPProvider.authenticate", "CredentialsProvider.authenticate", "implements", "dispatch"),
        ("LDAPProvider.authenticate", "AuthProvider.authenticate", "implements", "dispatch"),
        ("get_token", "AuthProvider.authenticate", "calls", "member"),
    ]
