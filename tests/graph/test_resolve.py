"""Resolution on one fixture repository per language: the exact edge set, each fixture
with an ambiguous name (split confidence) and an unresolved call."""

from __future__ import annotations

from pathlib import Path

from codecompass.indexing.parse import parse
from tests.graph.helpers import Edge, add_fixture, edges, repo_edges, workspace, write
from tests.peek import peek

P = "shop/shop"
D = "shop/docs/guide.md#Guide > Placing orders"
PYTHON: set[Edge] = {
    # Markdown: a backtick mention (by name) and a link to a line of code.
    (D, f"{P}/service.py#OrderService.place", "references", 0.8, 5),
    (D, f"{P}/repository.py#Repository.add", "references", 1.0, 6),
    # A package re-exporting names of its modules.
    (f"{P}/__init__.py", f"{P}/models.py", "imports", 1.0, 3),
    (f"{P}/__init__.py", f"{P}/models.py#Customer", "imports", 1.0, 3),
    (f"{P}/__init__.py", f"{P}/models.py#Order", "imports", 1.0, 3),
    (f"{P}/models.py#Entity.save", f"{P}/models.py#Entity.validate", "calls", 0.8, 6),
    (f"{P}/models.py#Order", f"{P}/models.py#Entity", "extends", 1.0, 12),
    (f"{P}/models.py#Customer", f"{P}/models.py#Entity", "extends", 1.0, 17),
    (f"{P}/models.py#Customer.orders", f"{P}/models.py#Order", "references", 1.0, 18),
    (f"{P}/models.py#Customer.orders", f"{P}/models.py#Order", "calls", 1.0, 19),
    (f"{P}/repository.py", f"{P}/models.py", "imports", 1.0, 1),
    (f"{P}/repository.py", f"{P}/models.py#Entity", "imports", 1.0, 1),
    # A Sphinx role in a docstring.
    (f"{P}/repository.py#Repository", f"{P}/models.py#Entity", "references", 0.8, 4),
    (f"{P}/repository.py#Repository.add", f"{P}/models.py#Entity", "references", 1.0, 7),
    # `item: Entity` → Entity.save.
    (f"{P}/repository.py#Repository.add", f"{P}/models.py#Entity.save", "calls", 0.8, 8),
    # the same call seen through the Order service.py passes it (service.py's edge, at
    # the call passing it; `callers` shows the call once)
    (f"{P}/repository.py#Repository.add", f"{P}/models.py#Entity.save", "calls", 0.8, 18),
    (f"{P}/service.py", "?logging", "imports", 1.0, 1),
    (f"{P}/service.py", f"{P}/__init__.py", "imports", 1.0, 3),
    (f"{P}/service.py", f"{P}/models.py#Order", "imports", 1.0, 3),
    (f"{P}/service.py", f"{P}/__init__.py", "imports", 1.0, 4),
    (f"{P}/service.py", f"{P}/models.py", "imports", 1.0, 4),
    (f"{P}/service.py", f"{P}/models.py", "imports", 1.0, 5),
    (f"{P}/service.py", f"{P}/models.py#Customer", "imports", 1.0, 5),
    (f"{P}/service.py", f"{P}/repository.py", "imports", 1.0, 6),
    (f"{P}/service.py", f"{P}/repository.py#Repository", "imports", 1.0, 6),
    (f"{P}/service.py", f"{P}/util.py", "imports", 1.0, 7),
    (f"{P}/service.py", f"{P}/util.py#render", "imports", 1.0, 7),
    (
        f"{P}/service.py#OrderService.__init__",
        f"{P}/repository.py#Repository",
        "references",
        1.0,
        11,
    ),
    (f"{P}/service.py#OrderService.__init__", "?logging.getLogger", "calls", 1.0, 13),
    (f"{P}/service.py#OrderService.place", f"{P}/models.py#Customer", "references", 1.0, 15),
    (f"{P}/service.py#OrderService.place", f"{P}/models.py#Order", "references", 1.0, 15),
    (f"{P}/service.py#OrderService.place", f"{P}/models.py#Order", "calls", 1.0, 16),
    # Inherited method through the class hierarchy.
    (f"{P}/service.py#OrderService.place", f"{P}/models.py#Entity.save", "calls", 0.8, 17),
    # An instance attribute typed by the constructor's annotation.
    (f"{P}/service.py#OrderService.place", f"{P}/repository.py#Repository.add", "calls", 0.8, 18),
    (
        f"{P}/service.py#OrderService.place",
        f"{P}/service.py#OrderService._notify",
        "calls",
        0.8,
        19,
    ),
    (f"{P}/service.py#OrderService.place", f"{P}/util.py#render", "calls", 1.0, 20),
    # A module attribute, then a method of the instance it returns.
    (f"{P}/service.py#OrderService.place", f"{P}/models.py#Customer", "calls", 0.9, 21),
    (f"{P}/service.py#OrderService.place", f"{P}/models.py#Customer.orders", "calls", 0.8, 21),
    (f"{P}/service.py#OrderService.place", "?logging.getLogger.info", "calls", 0.8, 22),
    # Unresolved: a name bound nowhere is kept with its name, not matched to a look-alike.
    (f"{P}/service.py#OrderService.place", "?close", "calls", 0.0, 23),
    # Ambiguous: an untyped receiver, two methods named `notify`.
    (f"{P}/service.py#OrderService._notify", f"{P}/util.py#Mailer.notify", "calls", 0.4, 27),
    (f"{P}/service.py#OrderService._notify", f"{P}/util.py#Pager.notify", "calls", 0.4, 27),
}

JS = "js/src"
JAVASCRIPT: set[Edge] = {
    # Through index.js: `export {Cart as ShoppingCart} from` and `export * from`.
    (f"{JS}/app.js", f"{JS}/index.js", "imports", 1.0, 1),
    (f"{JS}/app.js", f"{JS}/cart.js#Cart", "imports", 1.0, 1),
    (f"{JS}/app.js", f"{JS}/util.js#formatPrice", "imports", 1.0, 1),
    (f"{JS}/app.js", f"{JS}/cart.js#Cart", "calls", 1.0, 3),
    # `new Cart()` runs its constructor.
    (f"{JS}/app.js", f"{JS}/cart.js#Cart.constructor", "calls", 1.0, 3),
    # `add` returns `this`, so `.total()` is on a Cart too.
    (f"{JS}/app.js", f"{JS}/cart.js#Cart.add", "calls", 0.8, 4),
    (f"{JS}/app.js", f"{JS}/cart.js#Cart.total", "calls", 0.8, 4),
    (f"{JS}/app.js", f"{JS}/util.js#formatPrice", "calls", 1.0, 5),
    (f"{JS}/cart.js", f"{JS}/util.js", "imports", 1.0, 1),
    (f"{JS}/cart.js", f"{JS}/util.js#formatPrice", "imports", 1.0, 1),
    (f"{JS}/cart.js", f"{JS}/base.js", "imports", 1.0, 2),
    (f"{JS}/cart.js", f"{JS}/base.js#Store", "imports", 1.0, 2),
    (f"{JS}/cart.js", f"{JS}/log.js", "imports", 1.0, 3),
    (f"{JS}/cart.js#Cart", f"{JS}/base.js#Store", "extends", 1.0, 5),
    (f"{JS}/cart.js#Cart.constructor", f"{JS}/base.js#Store", "calls", 0.8, 7),
    (f"{JS}/cart.js#Cart.add", f"{JS}/base.js#Store.save", "calls", 0.8, 13),
    (f"{JS}/cart.js#Cart.total", f"{JS}/util.js#formatPrice", "calls", 1.0, 18),
    # require() of a CommonJS module.exports object.
    (f"{JS}/cart.js#Cart.report", f"{JS}/log.js#info", "calls", 0.9, 22),
    (f"{JS}/cart.js#Cart.report", f"{JS}/widgets.js#Button.render", "calls", 0.4, 23),
    (f"{JS}/cart.js#Cart.report", f"{JS}/widgets.js#Link.render", "calls", 0.4, 23),
    (f"{JS}/cart.js#Cart.report", "?missingHelper", "calls", 0.0, 24),
    (f"{JS}/index.js", f"{JS}/cart.js", "imports", 1.0, 1),
    (f"{JS}/index.js", f"{JS}/cart.js#Cart", "imports", 1.0, 1),
    (f"{JS}/index.js", f"{JS}/util.js", "imports", 1.0, 2),
    (f"{JS}/util.js#formatPrice", "?amount.toFixed", "calls", 0.0, 2),
}

TS = "ts/src"
TYPESCRIPT: set[Edge] = {
    (f"{TS}/repo.ts", f"{TS}/models.ts", "imports", 1.0, 1),
    (f"{TS}/repo.ts", f"{TS}/models.ts#Repository", "imports", 1.0, 1),
    (f"{TS}/repo.ts", f"{TS}/models.ts#User", "imports", 1.0, 1),
    (f"{TS}/repo.ts#UserRepo", f"{TS}/models.ts#Repository", "implements", 1.0, 3),
    (f"{TS}/repo.ts#UserRepo.find", f"{TS}/models.ts#User", "references", 1.0, 4),
    (f"{TS}/repo.ts#UserRepo.find", f"{TS}/models.ts#User", "calls", 1.0, 5),
    (f"{TS}/repo.ts#UserRepo.find", f"{TS}/models.ts#User.constructor", "calls", 1.0, 5),
    (f"{TS}/service.ts", f"{TS}/repo.ts", "imports", 1.0, 1),
    (f"{TS}/service.ts", f"{TS}/repo.ts#UserRepo", "imports", 1.0, 1),
    (f"{TS}/service.ts", f"{TS}/models.ts", "imports", 1.0, 2),
    (f"{TS}/service.ts#UserService.constructor", f"{TS}/repo.ts#UserRepo", "references", 1.0, 5),
    # A constructor parameter property, then the declared return type of `find`.
    (f"{TS}/service.ts#UserService.hello", f"{TS}/repo.ts#UserRepo.find", "calls", 0.8, 8),
    (f"{TS}/service.ts#UserService.hello", f"{TS}/models.ts#User.greet", "calls", 0.8, 9),
    (f"{TS}/service.ts#UserService.make", f"{TS}/models.ts#User", "references", 0.9, 12),
    (f"{TS}/service.ts#UserService.make", f"{TS}/models.ts#User", "calls", 0.9, 13),
    (f"{TS}/service.ts#UserService.make", f"{TS}/models.ts#User.constructor", "calls", 0.9, 13),
    (f"{TS}/service.ts#UserService.untyped", f"{TS}/models.ts#User.greet", "calls", 0.4, 17),
    (f"{TS}/service.ts#UserService.untyped", "?lookup", "calls", 0.0, 18),
}


def test_python_edges(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "python", "shop")
        assert edges(engine) == PYTHON


def test_javascript_edges(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "javascript", "js")
        # javascript/commonjs is a repository of its own (test_resolve_ecma.py).
        assert {e for e in edges(engine) if e[0].startswith(f"{JS}/")} == JAVASCRIPT


def test_typescript_edges(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "typescript", "ts")
        # typescript/fields is a repository of its own (test_resolve_ecma.py).
        assert {e for e in edges(engine) if e[0].startswith(f"{TS}/")} == TYPESCRIPT


def test_containment_and_member_of_weights(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "python", "shop")
        rows = peek(
            engine,
            "SELECT source, target, weight FROM edges WHERE type = 'contains' "
            "AND (target LIKE 'shop/shop/models.py%' OR source = 'shop')",
        )
        found = {(s, t, w) for s, t, w in rows}
        assert ("shop", "shop/shop/models.py", 0.4) in found
        assert ("shop/shop/models.py", "shop/shop/models.py#Entity", 0.4) in found
        assert ("shop/shop/models.py#Entity", "shop/shop/models.py#Entity.save", 0.6) in found
        assert len([r for r in found if r[1].startswith("shop/shop/models.py#")]) == 7


def test_repeated_rebinding_resolves_in_linear_work(tmp_path: Path, monkeypatch) -> None:
    """`x = x.step()` forty times in one function (sympy's simplifiers do this) once
    re-evaluated bindings exponentially: 163 s for 40 sympy files. Each binding is now
    evaluated a bounded number of times, and the resolvable call still resolves."""
    from codecompass.graph.resolve import Resolver

    repo = tmp_path / "chain"
    repo.mkdir()
    lines = [
        "class Expr:",
        "    def step(self):",
        "        return self",
        "",
        "    def done(self):",
        "        return 1",
        "",
        "",
        "def simplify(x):",
        "    x = Expr()",
        *["    x = x.step()" for _ in range(40)],
        "    if x:",
        "        x = x.step()",
        "    else:",
        "        x = x.step()",
        "    return Expr().done()",
        "",
    ]
    (repo / "chain.py").write_text("\n".join(lines), encoding="utf-8")
    calls = 0
    original = Resolver._binding

    def counting(self: Resolver, *args: object, **kwargs: object) -> object:
        nonlocal calls
        calls += 1
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Resolver, "_binding", counting)
    engine = workspace(tmp_path)
    engine.add_repo(repo, name="chain")
    assert calls < 2_000, calls
    found = edges(engine, ("calls",))
    step = "chain/chain.py#Expr.step"
    steps = {("chain/chain.py#simplify", step, "calls", 0.8, n) for n in [*range(11, 51), 52, 54]}
    assert {e for e in found if e[1] == step} == steps
    assert ("chain/chain.py#simplify", "chain/chain.py#Expr.done", "calls", 0.8, 55) in found


def test_a_name_resolves_only_to_code_its_language_can_call(tmp_path: Path) -> None:
    """Matplotlib's vendored C++ called Python methods by name (`arc()` → `Path.arc`, 564
    edges). A C call finds C code, and nothing when only Python defines the name."""
    engine = workspace(tmp_path)
    python = "class Path:\n    def arc(self):\n        pass\n\n    def wedge(self):\n        pass\n"
    header = "int draw(int r) {\n    return arc(r) + wedge(r);\n}\n"
    write(tmp_path / "mixed", {"lib/path.py": python, "src/draw.h": header, "src/arc.c": ARC_C})
    engine.add_repo(tmp_path / "mixed", name="mixed")
    calls = {(s, t) for s, t, *_ in edges(engine, ("calls",)) if s.startswith("mixed/src/")}
    # `wedge` is Python's alone: the call stays unresolved, with its name.
    assert calls == {
        ("mixed/src/draw.h#draw", "mixed/src/arc.c#arc"),
        ("mixed/src/draw.h#draw", "?wedge"),
    }


ARC_C = "int arc(int r) {\n    return r * 2;\n}\n"


def test_a_method_guess_takes_the_module_not_its_stub(tmp_path: Path) -> None:
    """`x.pyi` repeats `x.py`'s signatures: a method guessed by name is the module's, once
    (each stub made a second candidate, and more than three left a call unresolved)."""
    engine = workspace(tmp_path)
    shape = "class Shape:\n    def outline(self):\n        return []\n"
    stub = "class Shape:\n    def outline(self) -> list[int]: ...\n"
    user = "def render(item):\n    return item.outline()\n"
    write(tmp_path / "typed", {"pkg/shape.py": shape, "pkg/shape.pyi": stub, "app.py": user})
    engine.add_repo(tmp_path / "typed", name="typed")
    calls = {(s, t, c) for s, t, _, c, _ in edges(engine, ("calls",)) if s.startswith("typed/app")}
    assert calls == {("typed/app.py#render", "typed/pkg/shape.py#Shape.outline", 0.4)}


def test_a_name_guessed_from_code_is_never_a_test_helper(tmp_path: Path) -> None:
    """Slim's `App.handle` calls `$this->responseFactory->createResponse()`, an external
    factory: the guess by name found three test helpers of that name (0.27 each)."""
    engine = workspace(tmp_path)
    app = "def handle(factory):\n    return factory.create_response()\n"
    helper = "class FakeFactory:\n    def create_response(self):\n        return 200\n"
    test = "def test_handle(factory):\n    assert factory.create_response() == 200\n"
    php_app = "<?php\nclass App {\n    function handle() {\n        return make_body();\n    }\n}\n"
    php_helper = "<?php\nfunction make_body() {\n    return '';\n}\n"
    write(
        tmp_path / "svc",
        {
            "svc/app.py": app,
            "tests/fakes.py": helper,
            "tests/test_app.py": test,
            "src/App.php": php_app,
            "tests/Helpers.php": php_helper,
        },
    )
    engine.add_repo(tmp_path / "svc", name="svc")
    calls = {(s, t, c) for s, t, _, c, _ in edges(engine, ("calls",))}
    assert calls == {
        ("svc/svc/app.py#handle", "?factory.create_response", 0.0),
        ("svc/src/App.php#App.handle", "?make_body", 0.0),
        # a test may call a test helper it does not import
        (
            "svc/tests/test_app.py#test_handle",
            "svc/tests/fakes.py#FakeFactory.create_response",
            0.4,
        ),
    }


def test_a_package_that_imports_its_own_submodule_exposes_it(tmp_path: Path) -> None:
    """marshmallow's `__init__` says `from . import fields`, and its users write `from
    marshmallow import fields; fields.String()`: the name held the import of itself, so
    1,018 of its calls stayed unresolved. Python falls back to the submodule."""
    engine = workspace(tmp_path)
    init = "from . import fields\nfrom pkg import schema as schema\n"
    fields = "class String:\n    def __init__(self):\n        pass\n"
    user = "from pkg import fields, schema\n\n\ndef build():\n"
    user += "    return fields.String(), schema.make()\n"
    files = {"src/pkg/__init__.py": init, "src/pkg/fields.py": fields, "tests/test_build.py": user}
    write(tmp_path / "own", {**files, "src/pkg/schema.py": "def make():\n    pass\n"})
    engine.add_repo(tmp_path / "own", name="own")
    pkg = "own/src/pkg"
    assert {(s, t, c) for s, t, _, c, _ in edges(engine, ("calls",))} == {
        ("own/tests/test_build.py#build", f"{pkg}/fields.py#String", 0.9),
        ("own/tests/test_build.py#build", f"{pkg}/fields.py#String.__init__", 0.9),
        ("own/tests/test_build.py#build", f"{pkg}/schema.py#make", 0.9),
    }
    # The package imports its submodules, not itself.
    assert {(s, t) for s, t, *_ in edges(engine, ("imports",)) if s == f"{pkg}/__init__.py"} == {
        (f"{pkg}/__init__.py", f"{pkg}/fields.py"),
        (f"{pkg}/__init__.py", f"{pkg}/schema.py"),
    }


def test_a_module_named_as_a_library_imports_the_library(tmp_path: Path) -> None:
    """rich, indexed from its installed folder, holds `json.py` at its root: module
    `json` too. Its `from json import loads` is the standard library's, not itself."""
    engine = workspace(tmp_path)
    own = "from json import loads\n\n\ndef parse(text):\n    return loads(text)\n"
    write(tmp_path / "rich", {"__init__.py": "", "json.py": own})
    engine.add_repo(tmp_path / "rich", name="rich")
    assert {(s, t, ty) for s, t, ty, *_ in edges(engine) if s.startswith("rich/json.py")} == {
        ("rich/json.py", "?json.loads", "imports"),
        ("rich/json.py#parse", "?json.loads", "calls"),
    }


def _links(tmp_path: Path, files: dict[str, str], types: tuple[str, ...]) -> set[Edge]:
    """Index `files` as the repository `repo`: its edges of these types, ids without the
    repository's name."""
    engine = workspace(tmp_path)
    write(tmp_path / "repo", files)
    engine.add_repo(tmp_path / "repo", name="repo")
    return {
        (s.removeprefix("repo/"), t.removeprefix("repo/"), kind, c, line)
        for s, t, kind, c, line in edges(engine, types)
    }


def test_calls_of_the_grammar_only_languages_resolve_by_name(tmp_path: Path) -> None:
    """Plug's `callers Plug.Conn.put_resp_header` and Alamofire's callers answered nothing:
    Elixir, Swift, Kotlin and Dart calls were not read at all."""
    elixir_conn = (
        "defmodule Plug.Conn do\n  def halt(conn), do: conn\n\n"
        "  def put_resp_header(conn, key) do\n    halt(conn)\n  end\nend\n"
    )
    # Another `put_resp_header`: the module written (`Conn`, aliased) picks Plug.Conn's.
    elixir_other = "defmodule Fake.Adapter do\n  def put_resp_header(conn, key), do: conn\nend\n"
    elixir_user = (
        "defmodule Plug.SSL do\n  alias Plug.Conn\n\n"
        '  def call(conn), do: Conn.put_resp_header(conn, "hsts")\nend\n'
    )
    # An extension in another file calls a method of its type, and recurses.
    swift_session = "class Session {\n    func request() {}\n}\n"
    swift_extension = (
        "extension Session {\n    func retry(count: Int) {\n        request()\n"
        "        retry(count: count - 1)\n    }\n}\n"
    )
    kotlin = (
        "open class Tree {\n    fun log() {}\n}\n\n"
        "class DebugTree : Tree() {\n    fun debug() {\n        log()\n    }\n}\n"
    )
    # The shell's own commands are no calls of the repository's code.
    bash = 'f() {\n  return 0\n}\n\nmain() {\n  local x=1\n  f "$x"\n  echo done\n}\n'
    dart_lib = "int twice(int x) => x * 2;\n"
    dart_main = "import 'package:calc/src/math.dart';\n\nint four() => twice(2);\n"
    files = {
        "lib/plug/conn.ex": elixir_conn,
        "lib/fake/adapter.ex": elixir_other,
        "lib/plug/ssl.ex": elixir_user,
        "Sources/Session.swift": swift_session,
        "Sources/Session+Retry.swift": swift_extension,
        "app/Tree.kt": kotlin,
        "calc/lib/src/math.dart": dart_lib,
        "calc/bin/main.dart": dart_main,
        "bin/run.sh": bash,
    }
    links = {
        (s, t, kind, c)
        for s, t, kind, c, _ in _links(tmp_path, files, ("calls", "extends", "imports"))
    }
    assert links == {
        ("lib/plug/conn.ex#Plug.Conn.put_resp_header", "lib/plug/conn.ex#Plug.Conn.halt",
         "calls", 0.7),
        ("lib/plug/ssl.ex#Plug.SSL.call", "lib/plug/conn.ex#Plug.Conn.put_resp_header",
         "calls", 0.7),
        ("lib/plug/ssl.ex", "lib/plug/conn.ex", "imports", 1.0),
        ("lib/plug/ssl.ex", "lib/plug/conn.ex#Plug.Conn", "imports", 1.0),
        ("Sources/Session+Retry.swift#Session.retry", "Sources/Session.swift#Session.request",
         "calls", 0.7),
        ("Sources/Session+Retry.swift#Session.retry", "Sources/Session+Retry.swift#Session.retry",
         "calls", 0.7),
        ("app/Tree.kt#DebugTree", "app/Tree.kt#Tree", "extends", 0.7),
        ("app/Tree.kt#DebugTree.debug", "app/Tree.kt#Tree.log", "calls", 0.7),
        ("calc/bin/main.dart", "calc/lib/src/math.dart", "imports", 1.0),
        ("calc/bin/main.dart#four", "calc/lib/src/math.dart#twice", "calls", 0.5),
        ("bin/run.sh#main", "bin/run.sh#f", "calls", 0.7),
    }  # fmt: skip


def test_a_method_every_object_has_is_not_guessed_by_name(tmp_path: Path) -> None:
    """shelf's `HijackException.toString` had 14 callers at 0.5: every `x.toString()` on a
    receiver of unknown type, in a language where every object has one. A class's own
    call of its override still resolves."""
    dart_error = (
        "class HijackException implements Exception {\n"
        "  String toString() => 'hijacked';\n"
        "  String show() => toString();\n"
        "}\n"
    )
    dart_user = "String describe(Object message) => message.toString().trim();\n"
    # The class written before the call names whose `toString` it is (okhttp's
    # `StatusLine(protocol, code, message).toString()`).
    kotlin_line = 'class StatusLine(val code: Int) {\n    override fun toString() = "$code"\n}\n'
    kotlin_user = "fun head(code: Int): String = StatusLine(code).toString()\n"
    ruby_money = "class Money\n  def to_s\n    'm'\n  end\nend\n"
    ruby_user = "def show(x)\n  x.to_s\nend\n"
    # Go's fmt.Stringer and error: a uuid's `id.String()` was shipping's `Quote.String`
    go_quote = (
        'package shipping\n\ntype Quote struct{}\n\nfunc (q Quote) String() string { return "" }\n'
    )
    go_user = "package checkout\n\nfunc Place(id ID) string {\n\treturn id.String()\n}\n"
    files = {
        "shipping/quote.go": go_quote,
        "checkout/place.go": go_user,
        "lib/hijack.dart": dart_error,
        "lib/log.dart": dart_user,
        "lib/money.rb": ruby_money,
        "lib/show.rb": ruby_user,
        "app/StatusLine.kt": kotlin_line,
        "app/Head.kt": kotlin_user,
    }
    calls = {(s, t, c) for s, t, _, c, _ in _links(tmp_path, files, ("calls",)) if t[0] != "?"}
    assert calls == {
        ("lib/hijack.dart#HijackException.show", "lib/hijack.dart#HijackException.toString", 0.7),
        ("app/Head.kt#head", "app/StatusLine.kt#StatusLine", 0.7),
        ("app/Head.kt#head", "app/StatusLine.kt#StatusLine.toString", 0.7),
    }


def test_a_perl_call_names_the_package_of_its_sub(tmp_path: Path) -> None:
    """Mojolicious writes `package Mojo::Cache;` and then its subs: they were top-level
    `get` and `new`, so `Mojo::Other::get(1)` was a guess between every `get`."""
    cache = "package Mojo::Cache;\n\nsub new { bless {}, shift }\n\nsub get { 1 }\n\n1;\n"
    other = "package Mojo::Other;\n\nsub get { 2 }\n\n1;\n"
    app = (
        "package Mojo::App;\n\nsub run {\n  my $cache = Mojo::Cache->new;\n"
        "  return Mojo::Other::get(1);\n}\n\n1;\n"
    )
    files = {"lib/Mojo/Cache.pm": cache, "lib/Mojo/Other.pm": other, "lib/Mojo/App.pm": app}
    calls = {
        (s, t, c)
        for s, t, _, c, _ in _links(tmp_path, files, ("calls",))
        if s.startswith("lib/Mojo/App.pm")
    }
    assert calls == {
        ("lib/Mojo/App.pm#Mojo.App.run", "lib/Mojo/Cache.pm#Mojo.Cache.new", 0.7),
        ("lib/Mojo/App.pm#Mojo.App.run", "lib/Mojo/Other.pm#Mojo.Other.get", 0.7),
    }


def test_imports_of_the_grammar_only_languages_reach_their_modules(tmp_path: Path) -> None:
    """json-fortran's `use json_kinds` and Phoenix's `alias Phoenix.Socket` made no edge:
    the graph had no imports for Fortran, Haskell, Perl, Elixir, Julia, Lua or Nix, so `deps`
    of a module answered nothing and the overview's ranking missed every import."""
    fortran_kinds = "module json_kinds\n  integer, parameter :: RK = 8\nend module json_kinds\n"
    fortran_value = (
        "module json_value_module\n  use json_kinds, only: RK\n  use iso_fortran_env\n"
        "end module json_value_module\n"
    )
    haskell_types = "module Data.Aeson.Types where\n\nvalue :: Int\nvalue = 1\n"
    haskell_main = (
        "module Data.Aeson where\n\nimport qualified Data.Aeson.Types as T\nimport Data.Map (Map)\n"
    )
    perl_cache = "package Mojo::Cache;\n\nsub get { 1 }\n\n1;\n"
    perl_app = "package Mojo::App;\nuse Mojo::Cache;\n\nsub run { 1 }\n\n1;\n"
    # A module's alias of itself is no import.
    elixir_conn = "defmodule Plug.Conn do\n  alias Plug.Conn\n  def halt(conn), do: conn\nend\n"
    elixir_ssl = (
        "defmodule Plug.SSL do\n  alias Plug.Conn\n  import Bitwise\n"
        "  alias Plug.{Conn, Missing}\nend\n"
    )
    julia_main = 'module CSV\ninclude("utils.jl")\nusing .Utils\nusing Dates\nend\n'
    julia_utils = "module Utils\nf(x) = x\nend\n"
    lua_init = (
        'local path = require("plenary.path")\nlocal job = require "plenary"\n'
        "local mod = require(name)\n"  # no module named, and no call of the repository's
    )
    lua_path = "local M = {}\nfunction M.new() end\nreturn M\n"
    files = {
        "src/kinds.F90": fortran_kinds,
        "src/value.f90": fortran_value,
        "src/Data/Aeson/Types.hs": haskell_types,
        "src/Data/Aeson.hs": haskell_main,
        "lib/Mojo/Cache.pm": perl_cache,
        "lib/Mojo/App.pm": perl_app,
        "lib/plug/conn.ex": elixir_conn,
        "lib/plug/ssl.ex": elixir_ssl,
        "jl/CSV.jl": julia_main,
        "jl/utils.jl": julia_utils,
        "lua/plenary/init.lua": "return {}\n",
        "lua/plenary/path.lua": lua_path,
        "lua/telescope/init.lua": lua_init,
        "nix/flake.nix": "{\n  lib = import ./lib.nix;\n  tool = callPackage ./tool { };\n}\n",
        "nix/lib.nix": "{ pipe = val: f: f val; }\n",
        "nix/tool/default.nix": "{ }: { }\n",
    }
    imports = {
        (s, t, c, line) for s, t, _, c, line in _links(tmp_path, files, ("imports", "calls"))
    }
    assert imports == {
        ("src/value.f90", "src/kinds.F90", 1.0, 2),
        ("src/value.f90", "src/kinds.F90#json_kinds", 1.0, 2),
        ("src/value.f90", "?iso_fortran_env", 1.0, 3),
        ("src/Data/Aeson.hs", "src/Data/Aeson/Types.hs", 1.0, 3),
        ("src/Data/Aeson.hs", "?Data.Map", 1.0, 4),
        ("lib/Mojo/App.pm", "lib/Mojo/Cache.pm", 1.0, 2),
        ("lib/Mojo/App.pm", "lib/Mojo/Cache.pm#Mojo.Cache", 1.0, 2),
        ("lib/plug/ssl.ex", "lib/plug/conn.ex", 1.0, 2),
        ("lib/plug/ssl.ex", "lib/plug/conn.ex#Plug.Conn", 1.0, 2),
        ("lib/plug/ssl.ex", "?Bitwise", 1.0, 3),
        ("lib/plug/ssl.ex", "lib/plug/conn.ex", 1.0, 4),
        ("lib/plug/ssl.ex", "lib/plug/conn.ex#Plug.Conn", 1.0, 4),
        ("lib/plug/ssl.ex", "?Plug.Missing", 1.0, 4),
        ("jl/CSV.jl", "jl/utils.jl", 1.0, 2),
        ("jl/CSV.jl", "jl/utils.jl", 1.0, 3),
        ("jl/CSV.jl", "jl/utils.jl#Utils", 1.0, 3),
        ("jl/CSV.jl", "?Dates", 1.0, 4),
        ("lua/telescope/init.lua", "lua/plenary/path.lua", 1.0, 1),
        ("lua/telescope/init.lua", "lua/plenary/init.lua", 1.0, 2),
        ("nix/flake.nix", "nix/lib.nix", 1.0, 2),
        ("nix/flake.nix", "nix/tool/default.nix", 1.0, 3),
        # A parameter applied: no call of Julia's `Utils.f` (0.5 by name before).
        ("nix/lib.nix#pipe", "?f", 0.0, 1),
    }


def test_a_zig_or_lua_call_through_an_imported_module_reaches_that_file(tmp_path: Path) -> None:
    """http.zig's `posix.setsockopt(…)` (`const posix = @import("posix.zig")`) was a guess
    among every `setsockopt`, the Windows binding's included, and `std.…` calls were
    guessed too: its overview led with `ws2_32.zig`'s extern declarations."""
    posix = "pub fn setsockopt(fd: i32) void {\n    _ = fd;\n}\n"
    windows = 'pub extern "ws2_32" fn setsockopt(s: i32) i32;\npub fn print() void {}\n'
    server = (
        'const std = @import("std");\nconst posix = @import("posix.zig");\n\n'
        "pub fn listen() void {\n    posix.setsockopt(1);\n    std.debug.print();\n}\n"
    )
    lua_path = "local Path = {}\nfunction Path.new() end\nreturn Path\n"
    lua_job = "local Job = {}\nfunction Job.new() end\nreturn Job\n"
    lua_use = (
        'local path = require("plenary.path")\nlocal actions = require("telescope.actions")\n\n'
        "local function run()\n  path.new()\n  actions.new()\nend\n"
    )
    files = {
        "src/posix.zig": posix,
        "src/ws2_32.zig": windows,
        "src/server.zig": server,
        "lua/plenary/path.lua": lua_path,
        "lua/plenary/job.lua": lua_job,
        "lua/app.lua": lua_use,
    }
    calls = {(s, t, c) for s, t, _, c, _ in _links(tmp_path, files, ("calls",))}
    assert calls == {
        ("src/server.zig#listen", "src/posix.zig#setsockopt", 0.7),
        ("src/server.zig#listen", "?std.debug.print", 0.7),
        ("lua/app.lua#run", "lua/plenary/path.lua#Path.new", 0.7),
        ("lua/app.lua#run", "?actions.new", 0.7),
    }


def test_a_dbt_model_imports_the_models_it_refs(tmp_path: Path) -> None:
    """jaffle_shop's models had no symbol and no edge: `{{ ref('stg_orders') }}` is not
    SQL, so every model fell back to line windows. The Jinja is read past (a `ref()` as
    the model's name), each CTE is a symbol and each `ref()` an import of the model's
    file; a `source()` and a plain table are no import."""
    orders = (
        "{% set methods = ['card', 'cash'] %}\n\n"
        "with orders as (\n    select * from {{ ref('stg_orders') }}\n),\n\n"
        "payments as (\n    select {{ dbt_utils.star('x') }} from {{ ref('stg_payments') }}\n),\n\n"
        "final as (\n    select * from orders join payments using (order_id)\n)\n\n"
        "select * from final\n"
    )
    stg_orders = "select * from {{ source('shop', 'orders') }}\n"
    stg_payments = "select * from raw.payments join {{ ref('raw_methods') }} using (id)\n"
    files = {
        "models/orders.sql": orders,
        "models/staging/stg_orders.sql": stg_orders,
        "models/staging/stg_payments.sql": stg_payments,
        "seeds/raw_methods.csv": "id,name\n1,card\n",  # a seed: a table loaded from CSV
    }
    imports = {(s, t, line) for s, t, _, _, line in _links(tmp_path, files, ("imports",))}
    assert imports == {
        ("models/orders.sql", "models/staging/stg_orders.sql", 4),
        ("models/orders.sql", "models/staging/stg_payments.sql", 8),
        ("models/staging/stg_payments.sql", "seeds/raw_methods.csv", 1),
    }
    symbols = [(s.kind, s.name, s.start_line) for s in parse(orders, "sql").symbols]
    assert symbols == [
        ("variable", "orders", 3),
        ("variable", "payments", 7),
        ("variable", "final", 11),
    ]


def test_the_callers_of_a_file_or_a_module_include_its_importers(tmp_path: Path) -> None:
    """`callers json_value_module` and `callers models/staging/stg_orders.sql` answered
    nothing: a module is used by being imported, which `callers` did not follow."""
    engine = workspace(tmp_path)
    write(
        tmp_path / "repo",
        {
            "src/value.f90": "module json_value_module\nend module json_value_module\n",
            "src/file.f90": "module json_file_module\n  use json_value_module\nend module\n",
            "src/calc.f90": (
                "module calc\ncontains\n  subroutine run()\n    call step()\n  end subroutine\n"
                "  subroutine step()\n  end subroutine\nend module calc\n"
            ),
        },
    )
    engine.add_repo(tmp_path / "repo", name="repo")

    def callers(name: str) -> set[tuple[str, str]]:
        return {(e.source, e.type) for e in engine.callers(name).edges}

    importer = {("repo/src/file.f90", "imports")}
    assert callers("json_value_module") == importer
    assert callers("src/value.f90") == importer
    assert callers("calc.step") == {("repo/src/calc.f90#calc.run", "calls")}  # no imports


def test_a_class_method_from_outside_the_repository_still_uses_the_class(
    tmp_path: Path,
) -> None:
    """CodeTriage's `Repo.find_by(…)` and `User.where(…)` (ActiveRecord's, inherited)
    made no edge, while `Repo.new` and `Repo.count` were guessed as other classes' methods
    of that name (`ReposController.new`, 0.5). A call on a class the repository defines:
    Ruby's `new` makes the class; its own, a nested object's or a base class's method is
    that method; anything else stays unresolved, with a reference to the class."""
    files = {
        "app/models/application_record.rb": (
            "class ApplicationRecord\n  def self.recent\n  end\nend\n"
        ),
        "app/models/repo.rb": "class Repo < ApplicationRecord\n  def label\n  end\nend\n",
        "app/models/github/repo.rb": "module Github\n  class Repo\n  end\nend\n",
        "app/models/user.rb": "class User < ApplicationRecord\nend\n",
        "app/controllers/repos_controller.rb": (
            "class ReposController\n  def new\n  end\n\n  def count\n  end\nend\n"
        ),
        "app/jobs/sync.rb": (
            "class Sync\n  def run\n    Repo.find_by(name: 'x')\n    Repo.new\n"
            "    Repo.count\n    User.recent\n    Set.new\n    Github::Repo.new\n  end\nend\n"
        ),
        "app/Tree.kt": (
            "class Tree {\n    companion object {\n        fun plant(): Tree = Tree()\n    }\n}\n\n"
            "fun grow() = Tree.plant()\n"
        ),
        "app/Request.kt": (
            "class Request {\n    class Builder {\n        fun url(u: String): Builder = this\n"
            "        fun url(u: Int): Builder = this\n    }\n}\n\n"
            'fun make() = Request.Builder().url("x")\n'
        ),
        # A file with `init`s of its own still reaches the class's (http.zig's router).
        "src/params.zig": "pub const Params = struct {\n    pub fn init() Params {}\n};\n",
        "src/router.zig": (
            'const Params = @import("params.zig").Params;\n\n'
            "const Group = struct {\n    fn init() void {}\n};\n\n"
            "const Part = struct {\n    fn init() void {}\n};\n\n"
            "fn route() void {\n    _ = Params.init();\n}\n"
        ),
        "lib/shop.rb": (
            "module Shop\n  class Request\n  end\n\n  class Base\n    def call\n"
            "      Request.new\n    end\n  end\nend\n"
        ),
        "app/Log.kt": (
            'class Interceptor {\n    interface Logger\n}\n\nfun log() = Logger.getLogger("x")\n'
        ),
    }
    links = {
        (s, t, kind, c)
        for s, t, kind, c, _ in _links(tmp_path, files, ("calls", "references"))
        if s.startswith(("app/jobs/", "app/Tree.kt#grow", "app/Request.kt#", "app/Log.kt", "lib/"))
        or s == "src/router.zig#route"
    }
    assert links == {
        ("app/jobs/sync.rb#Sync.run", "?Repo.find_by", "calls", 0.0),
        ("app/jobs/sync.rb#Sync.run", "app/models/repo.rb#Repo", "references", 0.7),
        ("app/jobs/sync.rb#Sync.run", "app/models/repo.rb#Repo", "calls", 0.7),
        ("app/jobs/sync.rb#Sync.run", "?Repo.count", "calls", 0.0),
        ("app/jobs/sync.rb#Sync.run", "?Set.new", "calls", 0.7),  # outside: not ReposController.new
        ("app/jobs/sync.rb#Sync.run", "app/models/github/repo.rb#Github.Repo", "calls", 0.7),
        ("app/jobs/sync.rb#Sync.run", "app/models/application_record.rb#ApplicationRecord.recent",
         "calls", 0.7),
        ("app/Tree.kt#grow", "app/Tree.kt#Tree.Companion.plant", "calls", 0.7),
        # okhttp's `Request.Builder().url(…)`: a method of the class, two overloads.
        ("app/Request.kt#make", "app/Request.kt#Request.Builder", "calls", 0.7),
        ("app/Request.kt#make", "app/Request.kt#Request.Builder.url", "calls", 0.4),
        ("app/Request.kt#make", "app/Request.kt#Request.Builder.url@4", "calls", 0.4),
        ("src/router.zig#route", "src/params.zig#Params.init", "calls", 0.7),
        # Inside `Shop::Base`, `Request` is `Shop::Request`, as Ruby looks constants up.
        ("lib/shop.rb#Shop.Base.call", "lib/shop.rb#Shop.Request", "calls", 0.7),
        # `Logger` is java.util.logging's: a nested `Interceptor.Logger` is not named so.
        ("app/Log.kt#log", "?Logger.getLogger", "calls", 0.0),
    }  # fmt: skip


def test_a_namespace_package_is_named_from_its_distribution_root(tmp_path: Path) -> None:
    """langgraph splits `langgraph` over several distributions with no `__init__.py`
    (PEP 420): `libs/checkpoint/langgraph/checkpoint/base/` is `langgraph.checkpoint
    .base`. Its 2,145 imports of `langgraph.…` were all unresolved."""
    files = {
        "libs/checkpoint/pyproject.toml": '[project]\nname = "acme-checkpoint"\n',
        "libs/checkpoint/acme/checkpoint/base/__init__.py": (
            "class BaseSaver:\n    def get(self):\n        return None\n"
        ),
        "libs/main/pyproject.toml": '[project]\nname = "acme"\n',
        "libs/main/src/acme/graph/__init__.py": "from acme.graph.state import compile\n",
        "libs/main/src/acme/graph/state.py": (
            "from acme.checkpoint.base import BaseSaver\n\n\n"
            "def compile(saver: BaseSaver):\n    return saver.get()\n"
        ),
        "tools/run.py": "from acme.graph import compile\n\ncompile(None)\n",
    }
    found = repo_edges(tmp_path, "ns", files, ("imports", "calls"))
    state = "ns/libs/main/src/acme/graph/state.py"
    base = "ns/libs/checkpoint/acme/checkpoint/base/__init__.py"
    assert found == {
        (state, base, "imports", 1.0, 1),
        (state, f"{base}#BaseSaver", "imports", 1.0, 1),
        (f"{state}#compile", f"{base}#BaseSaver.get", "calls", 0.8, 5),
        ("ns/libs/main/src/acme/graph/__init__.py", state, "imports", 1.0, 1),
        ("ns/libs/main/src/acme/graph/__init__.py", f"{state}#compile", "imports", 1.0, 1),
        ("ns/tools/run.py", "ns/libs/main/src/acme/graph/__init__.py", "imports", 1.0, 1),
        ("ns/tools/run.py", f"{state}#compile", "imports", 1.0, 1),
        ("ns/tools/run.py", f"{state}#compile", "calls", 1.0, 3),
    }


def test_a_module_imported_from_a_namespace_package_is_that_module(tmp_path: Path) -> None:
    """`from app import auth` where `app/` has no `__init__.py` (PEP 420), and `from .
    import auth` beside it, import the module `app/auth.py`: both had been taken for an
    outside package's name, and `auth.verify_token(…)` for no call of the repository."""
    files = {
        "app/auth.py": "def verify_token(token):\n    return token\n",
        "app/admin.py": "from app import auth\n\n\ndef dashboard(r):\n    "
        "return auth.verify_token(r)\n",
        "app/rel.py": "from . import auth\n\n\ndef rel(r):\n    return auth.verify_token(r)\n",
        "app/views.py": "from app.auth import verify_token\n\n\ndef login(r):\n    "
        "return verify_token(r)\n",
        "app/std.py": "from os import path\n\n\ndef here():\n    return path.join('a')\n",
        # pylint's `doc/…/good/functools.partial.py` was the module `functools.partial`.
        "doc/good/functools.partial.py": "x = 1\n",
        "app/tools.py": "from functools import partial\n\n\ndef bound():\n    return partial(f)\n",
    }
    found = repo_edges(tmp_path, "ns", files, ("calls",))
    target = "ns/app/auth.py#verify_token"
    assert found == {
        ("ns/app/admin.py#dashboard", target, "calls", 0.9, 5),
        ("ns/app/rel.py#rel", target, "calls", 0.9, 5),
        ("ns/app/views.py#login", target, "calls", 1.0, 5),
        ("ns/app/std.py#here", "?os.path.join", "calls", 1.0, 5),  # still outside
        ("ns/app/tools.py#bound", "?functools.partial", "calls", 1.0, 5),
    }


def test_a_property_is_read_through_typed_names_and_a_typed_containers_elements(
    tmp_path: Path,
) -> None:
    """sqlfluff's `callers Selectable.select_info` listed its own file only: the rules'
    `for selectable in query.selectables: selectable.select_info` (a dataclass field
    `selectables: list[Selectable]`) was no read of the property, and `for s in items:
    s.go()` with `items: list[Selectable]` no call of it: the annotation's element type
    was dropped. Pydantic's `Annotated[list[X], Field(…)]` holds X's too."""
    query = (
        "from dataclasses import dataclass, field\nfrom functools import cached_property\n\n\n"
        "class Selectable:\n    @cached_property\n    def select_info(self):\n        return 1\n\n"
        "    def go(self):\n        return 2\n\n\n"
        "class Other:\n    def go(self):\n        return 3\n\n\n"
        "@dataclass\nclass Query:\n"
        "    selectables: list[Selectable] = field(default_factory=list)\n"
    )
    rule = (
        "from typing import Optional, Sequence\n\nfrom q import Query, Selectable\n\n\n"
        "def analyze(query: Query):\n    for selectable in query.selectables:\n"
        "        info = selectable.select_info\n    return info\n\n\n"
        "def direct(s: Selectable):\n    return s.select_info\n\n\n"
        "def each(items: Optional[Sequence[Selectable]]):\n"
        "    for s in items:\n        s.go()\n\n\n"
        "def untyped(items):\n    for s in items:\n        s.select_info\n\n\n"
        "def annotated(items: Annotated[list[Selectable], Field(min_length=1)]):\n"
        "    for s in items:\n        s.go()\n"
    )
    found = repo_edges(tmp_path, "p", {"q.py": query, "rule.py": rule}, ("calls",))
    resolved = {(src, t, line) for src, t, _, _, line in found if not t.startswith("?")}
    assert resolved == {
        ("p/rule.py#analyze", "p/q.py#Selectable.select_info", 8),
        ("p/rule.py#direct", "p/q.py#Selectable.select_info", 13),
        ("p/rule.py#each", "p/q.py#Selectable.go", 18),
        ("p/rule.py#annotated", "p/q.py#Selectable.go", 28),
    }


def test_php_use_reaches_the_class_composer_autoloads(tmp_path: Path) -> None:
    """koel (Laravel): none of 7,169 `use` imports resolved, since `App\\` lives in `app/`
    (composer.json's PSR-4 map), and `Log::error`, `Cache::put`, `File::put` of imported
    facades were taken for the repository's only `put` (59 false callers of one)."""
    composer = (
        '{"autoload": {"psr-4": {"App\\\\": "app/"}},\n'
        ' "autoload-dev": {"psr-4": {"Tests\\\\": "tests/"}}}\n'
    )
    service = (
        "<?php\nnamespace App\\Services;\n\n"
        "class FavoriteService\n{\n    public function toggle(): void {}\n}\n"
    )
    request = "<?php\nnamespace App\\Http\\Requests\\API;\n\nclass Request\n{\n}\n"
    other = "<?php\nnamespace App\\Http\\Requests\\Interaction;\n\nclass Request\n{\n}\n"
    uploader = (
        "<?php\nnamespace App\\Http\\Requests\\Interaction;\n\n"
        "class Uploader\n{\n    public function put(): void {}\n}\n"
    )
    models = (
        "<?php\nnamespace App\\Models;\n\nclass Song\n{\n    public static function query() {}\n}\n"
    )
    controller = (
        "<?php\nnamespace App\\Http\\Requests\\Interaction;\n\n"
        "use App\\Http\\Requests\\API\\Request as ApiRequest;\n"
        "use App\\Models\\{Song};\n"
        "use App\\Services\\FavoriteService;\n"
        "use Illuminate\\Support\\Facades\\Cache;\n"
        "use function Tests\\create_user;\n\n"
        "class PlayCountRequest extends ApiRequest\n{\n"
        "    public function handle()\n    {\n"
        "        Cache::put('k', 1);\n        Song::query();\n"
        "        (new FavoriteService())->toggle();\n        create_user();\n    }\n}\n"
    )
    helpers = "<?php\nnamespace Tests;\n\nfunction create_user() {}\n"
    files = {
        "composer.json": composer,
        "app/Services/FavoriteService.php": service,
        "app/Http/Requests/API/Request.php": request,
        "app/Http/Requests/Interaction/Request.php": other,
        "app/Http/Requests/Interaction/Uploader.php": uploader,
        "app/Http/Requests/Interaction/PlayCountRequest.php": controller,
        "app/Models/Song.php": models,
        "tests/Helpers.php": helpers,
    }
    found = repo_edges(tmp_path, "koel", files, ("imports", "calls", "extends"))
    path = "koel/app/Http/Requests/Interaction/PlayCountRequest.php"
    service_id = "koel/app/Services/FavoriteService.php#FavoriteService"
    assert {e for e in found if e[0].startswith(path)} == {
        (path, "koel/app/Http/Requests/API/Request.php", "imports", 1.0, 4),
        (path, "koel/app/Http/Requests/API/Request.php#Request", "imports", 1.0, 4),
        (path, "koel/app/Models/Song.php", "imports", 1.0, 5),
        (path, "koel/app/Models/Song.php#Song", "imports", 1.0, 5),
        (path, "koel/app/Services/FavoriteService.php", "imports", 1.0, 6),
        (path, "koel/app/Services/FavoriteService.php#FavoriteService", "imports", 1.0, 6),
        (path, "?Illuminate.Support.Facades.Cache", "imports", 1.0, 7),
        (path, "koel/tests/Helpers.php", "imports", 1.0, 8),
        (path, "koel/tests/Helpers.php#create_user", "imports", 1.0, 8),
        # the `use`d Request, not the one of the same folder
        (f"{path}#PlayCountRequest", "koel/app/Http/Requests/API/Request.php#Request",
         "extends", 1.0, 10),
        (f"{path}#PlayCountRequest.handle", "?Cache.put", "calls", 0.7, 14),
        (f"{path}#PlayCountRequest.handle", "koel/app/Models/Song.php#Song.query", "calls", 0.7,
         15),
        (f"{path}#PlayCountRequest.handle", f"{service_id}", "calls", 1.0, 16),
        # an instance's method: still by name (PHP is not typed here)
        (f"{path}#PlayCountRequest.handle", f"{service_id}.toggle", "calls", 0.5, 16),
        (f"{path}#PlayCountRequest.handle", "koel/tests/Helpers.php#create_user", "calls", 1.0,
         17),
    }  # fmt: skip


def test_a_rails_model_calls_its_concerns_helpers_callbacks_and_jobs(tmp_path: Path) -> None:
    """maybe (Rails): `include Syncable` reached no module (a concern is one), `sync_later
    if ok` and a bare `import_market_data` were no calls, `before_action :set_account`
    named no method, `SyncJob.perform_later` ran no `perform`, and `30.days` and
    `items.each` were guesses at `Period.days` (289) and `Series#each` (129)."""
    concern = "module Syncable\n  def sync_later\n    SyncJob.perform_later(self)\n  end\nend\n"
    job = "class SyncJob\n  def perform(record)\n    record.sync\n  end\nend\n"
    period = "class Period\n  def days\n    1\n  end\nend\n"
    series = "class Series\n  def each\n    yield 1\n  end\nend\n"
    account = (
        "class Account\n"
        "  include Syncable\n"
        "  before_action :set_account\n\n"
        "  def sync(ok)\n"
        "    sync_later if ok\n"
        "    import_market_data\n"
        "    total = 30.days\n"
        "    total\n"
        "    items.each { |i| i }\n"
        "  end\n\n"
        "  private\n\n"
        "  def set_account\n    1\n  end\n\n"
        "  def import_market_data\n    2\n  end\nend\n"
    )
    files = {
        "app/models/concerns/syncable.rb": concern,
        "app/jobs/sync_job.rb": job,
        "app/models/period.rb": period,
        "app/models/series.rb": series,
        "app/models/account.rb": account,
    }
    found = repo_edges(tmp_path, "rails", files, ("calls", "extends"))
    a = "rails/app/models/account.rb#Account"
    assert {e for e in found if e[0].startswith(a)} == {
        (a, "rails/app/models/concerns/syncable.rb#Syncable", "extends", 0.5, 2),
        (a, "?include", "calls", 0.0, 2),
        (a, f"{a}.set_account", "calls", 0.7, 3),
        (a, "?before_action", "calls", 0.0, 3),
        (f"{a}.sync", "rails/app/models/concerns/syncable.rb#Syncable.sync_later", "calls", 0.5, 6),
        (f"{a}.sync", f"{a}.import_market_data", "calls", 0.7, 7),
        (f"{a}.sync", "??.days", "calls", 0.0, 8),
        (f"{a}.sync", "?items.each", "calls", 0.0, 10),
        # a bare receiver is a call of self's method too (none is defined here)
        (f"{a}.sync", "?items", "calls", 0.0, 10),
    }
    syncable = "rails/app/models/concerns/syncable.rb#Syncable.sync_later"
    assert (syncable, "rails/app/jobs/sync_job.rb#SyncJob.perform", "calls", 0.7, 3) in found


def test_callers_of_a_ruby_concern_are_the_classes_including_it(tmp_path: Path) -> None:
    concern = "module Syncable\n  def sync_later\n    1\n  end\nend\n"
    account = "class Account\n  include Syncable\nend\n"
    family = "class Family\n  include Syncable\nend\n"
    files = {"concerns/syncable.rb": concern, "account.rb": account, "family.rb": family}
    write(tmp_path / "r", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "r", name="r")
        found = {(e.source, e.type) for e in engine.callers("Syncable").edges}
    assert found == {("r/account.rb#Account", "extends"), ("r/family.rb#Family", "extends")}


def test_php_calls_through_an_injected_service_follow_its_declared_type(
    tmp_path: Path,
) -> None:
    """koel: of 864 `$this->service->method()` calls on a typed constructor property, 255
    reached nothing and 130 also reached look-alikes (`callers SongRepository.search`
    found one of its ten callers): PHP calls were guessed by name."""
    repository = (
        "<?php\nnamespace App\\Repositories;\n\n"
        "class SongRepository\n{\n    public function search(string $q) {}\n}\n"
    )
    other = (
        "<?php\nnamespace App\\Services;\n\n"
        "class SearchIndex\n{\n    public function search(string $q) {}\n}\n"
    )
    cache = "<?php\nnamespace App\\Services;\n\nclass Cache\n{\n    public function put() {}\n}\n"
    resolver = (
        "<?php\nnamespace App\\Ai;\n\n"
        "use App\\Repositories\\SongRepository;\n"
        "use App\\Services\\Cache;\n"
        "use Psr\\Log\\LoggerInterface;\n\n"
        "class SongRequestResolver\n{\n"
        "    protected Cache $cache;\n\n"
        "    public function __construct(\n"
        "        private readonly SongRepository $songs,\n"
        "        private LoggerInterface $logger,\n"
        "    ) {}\n\n"
        "    public function resolve(string $q)\n    {\n"
        "        $this->cache->put();\n"
        "        $this->logger->search($q);\n"
        "        return $this->songs->search($q);\n    }\n}\n"
    )
    files = {
        "composer.json": '{"autoload": {"psr-4": {"App\\\\": "app/"}}}\n',
        "app/Repositories/SongRepository.php": repository,
        "app/Services/SearchIndex.php": other,
        "app/Services/Cache.php": cache,
        "app/Ai/SongRequestResolver.php": resolver,
    }
    found = repo_edges(tmp_path, "koel", files, ("calls",))
    source = "koel/app/Ai/SongRequestResolver.php#SongRequestResolver.resolve"
    assert {e for e in found if e[0] == source} == {
        (source, "koel/app/Services/Cache.php#Cache.put", "calls", 0.7, 19),
        # an outside type: not one of the repository's `search`es
        (source, "?this.logger.search", "calls", 0.7, 20),
        (source, "koel/app/Repositories/SongRepository.php#SongRepository.search", "calls",
         0.7, 21),
    }  # fmt: skip


def test_a_php_class_constant_names_its_class(tmp_path: Path) -> None:
    """koel: `deps Album.songs` showed only `?this.hasMany`, not `Song`, and `callers
    Album` found nothing: `Song::class` (a relation's model, an observer, a route's
    controller) made no edge."""
    album = (
        "<?php\nnamespace App\\Models;\n\n"
        "use App\\Observers\\AlbumObserver;\n"
        "use Illuminate\\Database\\Eloquent\\Attributes\\ObservedBy;\n\n"
        "#[ObservedBy(AlbumObserver::class)]\n"
        "class Album\n{\n"
        "    public function songs()\n    {\n"
        "        return $this->hasMany(Song::class);\n    }\n\n"
        "    public function kind()\n    {\n        return static::class;\n    }\n}\n"
    )
    song = "<?php\nnamespace App\\Models;\n\nclass Song\n{\n}\n"
    observer = "<?php\nnamespace App\\Observers;\n\nclass AlbumObserver\n{\n}\n"
    files = {
        "composer.json": '{"autoload": {"psr-4": {"App\\\\": "app/"}}}\n',
        "app/Models/Album.php": album,
        "app/Models/Song.php": song,
        "app/Observers/AlbumObserver.php": observer,
    }
    found = repo_edges(tmp_path, "koel", files, ("references",))
    a = "koel/app/Models/Album.php#Album"
    assert {e for e in found if e[0].startswith(a)} == {
        (a, "koel/app/Observers/AlbumObserver.php#AlbumObserver", "references", 1.0, 7),
        (f"{a}.songs", "koel/app/Models/Song.php#Song", "references", 0.7, 12),
    }


def test_a_rails_association_names_its_model(tmp_path: Path) -> None:
    """maybe: `has_many :entries` made no edge to Entry, so `callers Entry` missed every
    model holding entries."""
    account = (
        "class Account\n"
        "  belongs_to :family\n"
        "  has_many :entries\n"
        '  has_many :holdings, class_name: "Account::Holding"\n'
        "  has_one :plaid_account\n"
        "end\n"
    )
    files = {
        "app/models/account.rb": account,
        "app/models/family.rb": "class Family\nend\n",
        "app/models/entry.rb": "class Entry\nend\n",
        "app/models/plaid_account.rb": "class PlaidAccount\nend\n",
        "app/models/account/holding.rb": "class Account\n  class Holding\n  end\nend\n",
    }
    found = repo_edges(tmp_path, "maybe", files, ("references",))
    m = "maybe/app/models"
    assert {e for e in found if e[0] == f"{m}/account.rb#Account"} == {
        (f"{m}/account.rb#Account", f"{m}/family.rb#Family", "references", 0.7, 2),
        (f"{m}/account.rb#Account", f"{m}/entry.rb#Entry", "references", 0.7, 3),
        (f"{m}/account.rb#Account", f"{m}/account/holding.rb#Account.Holding", "references",
         0.7, 4),
        (f"{m}/account.rb#Account", f"{m}/plaid_account.rb#PlaidAccount", "references", 0.7,
         5),
    }  # fmt: skip


def test_skipping_a_callback_calls_nothing_and_a_classs_own_file_comes_first(
    tmp_path: Path,
) -> None:
    """`skip_before_action :authenticate` removes a callback (maybe's API controllers):
    it was read as a call. koel's `SongResource::toArray` in its Subsonic controllers
    also reached `App\\Http\\Resources\\SongResource`, another class of that name."""
    controller = (
        "class Api::BaseController\n"
        "  skip_before_action :authenticate\n"
        "  before_action :authorize\n\n"
        "  def authenticate\n  end\n\n"
        "  def authorize\n  end\nend\n"
    )
    subsonic = (
        "<?php\nnamespace App\\Subsonic;\n\n"
        "class SongResource\n{\n    public static function toArray() {}\n}\n"
    )
    resources = (
        "<?php\nnamespace App\\Http\\Resources;\n\n"
        "class SongResource\n{\n    public static function toArray() {}\n}\n"
    )
    caller = (
        "<?php\nnamespace App\\Subsonic\\Controllers;\n\n"
        "use App\\Subsonic\\SongResource;\n\n"
        "function song() {\n    return SongResource::toArray();\n}\n"
    )
    files = {
        "composer.json": '{"autoload": {"psr-4": {"App\\\\": "app/"}}}\n',
        "app/controllers/api/base_controller.rb": controller,
        "app/Subsonic/SongResource.php": subsonic,
        "app/Http/Resources/SongResource.php": resources,
        "app/Subsonic/Controllers/song.php": caller,
    }
    found = repo_edges(tmp_path, "r", files, ("calls",))
    base = "r/app/controllers/api/base_controller.rb#Api.BaseController"
    assert {(e[1], e[4]) for e in found if e[0] == base and e[1].startswith("r/")} == {
        (f"{base}.authorize", 3)
    }
    song = "r/app/Subsonic/Controllers/song.php#song"
    assert {e[1] for e in found if e[0] == song} == {
        "r/app/Subsonic/SongResource.php#SongResource.toArray"
    }


def test_a_ruby_call_without_a_receiver_reaches_only_what_self_can(tmp_path: Path) -> None:
    """maybe: `scope :chronological` in a model went to an unrelated
    `AutoMerchantDetector#scope` (47 such), a test's fixture accessor `accounts(:x)` to
    some class's `accounts`. Without a receiver, Ruby calls self's methods: the class's,
    its bases', its modules' (a module itself may call any includer's)."""
    files = {
        "app/models/detector.rb": "class Detector\n  def scope\n  end\nend\n",
        "app/models/concerns/syncable.rb": (
            "module Syncable\n  def sync_later\n    perform_sync\n  end\nend\n"
        ),
        "app/models/account.rb": (
            "class Account < Base\n  include Syncable\n  scope :visible\n\n"
            "  def sync\n    sync_later\n    audit\n  end\n\n"
            "  def perform_sync\n  end\nend\n"
        ),
        "app/models/base.rb": "class Base\n  def audit\n  end\nend\n",
    }
    found = repo_edges(tmp_path, "r", files, ("calls",))
    m = "r/app/models"
    assert {(e[0], e[1]) for e in found if e[1].startswith("r/")} == {
        (f"{m}/account.rb#Account.sync", f"{m}/concerns/syncable.rb#Syncable.sync_later"),
        (f"{m}/account.rb#Account.sync", f"{m}/base.rb#Base.audit"),
        # a mixin's call: any includer's method
        (f"{m}/concerns/syncable.rb#Syncable.sync_later", f"{m}/account.rb#Account.perform_sync"),
    }


def test_a_c_function_named_as_a_value_is_referenced(tmp_path: Path) -> None:
    """tmux reaches its 61 `cmd_*_exec` only through command tables (`.exec = …`) and
    hands callbacks on (`event_set(…, server_accept, …)`): 26% of its functions had no
    caller. A name in a value's place naming a function is a `references` edge (the
    file's own static one first); a variable's name makes none."""
    files = {
        "cmd.h": "struct entry { const char *name; int (*exec)(int); };\n",
        "cmd-hello.c": (
            '#include "cmd.h"\n\n'
            "static int\ncmd_hello_exec(int n)\n{\n\treturn (n);\n}\n\n"
            "const struct entry cmd_hello_entry = {\n"
            '\t.name = "hello",\n\t.exec = cmd_hello_exec\n};\n'
        ),
        "server.c": (
            "static void\nserver_accept(int fd)\n{\n}\n\n"
            "static void (*handlers[])(int) = { server_accept };\n\n"
            "void\nserver_start(int fd, int count)\n{\n"
            "\tevent_set(fd, count, server_accept);\n"
            "\tvoid (*cb)(int) = &server_accept;\n}\n"
        ),
    }
    found = repo_edges(tmp_path, "t", files, ("references",))
    assert {(e[0], e[1], e[3], e[4]) for e in found} == {
        ("t/cmd-hello.c", "t/cmd-hello.c#cmd_hello_exec", 0.7, 11),
        ("t/server.c", "t/server.c#server_accept", 0.7, 6),
        ("t/server.c#server_start", "t/server.c#server_accept", 0.7, 11),  # its first read
    }


def test_a_ruby_method_called_without_receiver_in_a_value_place(tmp_path: Path) -> None:
    """Jekyll: `Document#url` missed all 3 of its calls and `relative_path` 11: a bare
    name was a call only as a statement, not as an argument, an assigned value, a hash
    value or a receiver. A local (assigned, a parameter) is none."""
    site = (
        "module App\n  class Site\n    def render(page)\n"
        "      payload = site_payload\n      log(relative_path)\n"
        "      collections.each { |c| c }\n      { url: url, page: page }\n"
        "      payload\n    end\n\n"
        "    def site_payload; end\n    def relative_path; end\n    def collections; end\n"
        "    def url; end\n    def log(msg); end\n    def payload; end\n  end\nend\n"
    )
    found = repo_edges(tmp_path, "r", {"lib/site.rb": site}, ("calls",))
    render = "r/lib/site.rb#App.Site.render"
    assert {(e[1].rsplit(".", 1)[-1], e[4]) for e in found if e[0] == render and e[3] > 0} == {
        ("site_payload", 4),
        ("log", 5),
        ("relative_path", 5),
        ("collections", 6),
        ("url", 7),
    }


def test_ruby_attribute_accessors_are_methods(tmp_path: Path) -> None:
    """Jekyll: `callers Site.config` said the symbol was unknown; `attr_accessor
    :config` defines it (156 calls in Jekyll's lib stayed unresolved)."""
    site = (
        "module App\n  class Site\n    attr_accessor :config, :pages\n"
        "    attr_writer :source\n\n    def render\n      config.fetch(1)\n"
        "      self.pages\n    end\n  end\nend\n"
    )
    reader = (
        "module App\n  class Reader\n    def read(site)\n      site.config\n    end\n  end\nend\n"
    )
    found = repo_edges(tmp_path, "r", {"lib/site.rb": site, "lib/reader.rb": reader}, ("calls",))
    assert {(e[0], e[1], e[3]) for e in found if e[1].startswith("r/")} == {
        ("r/lib/site.rb#App.Site.render", "r/lib/site.rb#App.Site.config", 0.7),
        ("r/lib/site.rb#App.Site.render", "r/lib/site.rb#App.Site.pages", 0.7),
        # `site` holds the one class so named
        ("r/lib/reader.rb#App.Reader.read", "r/lib/site.rb#App.Site.config", 0.5),
    }


def test_a_ruby_mixin_calls_the_methods_of_the_classes_including_it(tmp_path: Path) -> None:
    """Jekyll: `Convertible#read_yaml`'s `data` reached `Document`, `Excerpt` and
    `StaticFile`, none of which includes `Convertible` (16 of its 26 edges)."""
    files = {
        "lib/convertible.rb": "module Convertible\n  def read_yaml\n    data\n  end\nend\n",
        "lib/page.rb": "class Page\n  include Convertible\n\n  def data\n  end\nend\n",
        "lib/document.rb": "class Document\n  def data\n  end\nend\n",
    }
    found = repo_edges(tmp_path, "r", files, ("calls",))
    assert {(e[0], e[1]) for e in found if e[1].startswith("r/")} == {
        ("r/lib/convertible.rb#Convertible.read_yaml", "r/lib/page.rb#Page.data")
    }


def test_a_ruby_mixin_reaches_the_subclasses_of_its_includers(tmp_path: Path) -> None:
    """A subclass of a class that includes a mixin includes it too: the mixin's bare
    call reaches the subclass's method (`class Post < Page`), not an unrelated class's."""
    files = {
        "lib/convertible.rb": "module Convertible\n  def read_yaml\n    layout\n  end\nend\n",
        "lib/page.rb": "class Page\n  include Convertible\nend\n",
        "lib/post.rb": "class Post < Page\n  def layout\n  end\nend\n",
        "lib/other.rb": "class Other\n  def layout\n  end\nend\n",
    }
    found = repo_edges(tmp_path, "r", files, ("calls",))
    assert {(e[0], e[1]) for e in found if e[1].startswith("r/")} == {
        ("r/lib/convertible.rb#Convertible.read_yaml", "r/lib/post.rb#Post.layout")
    }


def test_a_ruby_receiver_holds_the_class_its_caller_can_see(tmp_path: Path) -> None:
    """Jekyll: a benchmark script's top-level `Document` took every `document.x` in
    `Jekyll::Renderer` from `Jekyll::Document` (34 calls lost)."""
    files = {
        "lib/app/document.rb": (
            "module App\n  class Document\n    def render_me\n    end\n  end\nend\n"
        ),
        "lib/app/renderer.rb": (
            "module App\n  class Renderer\n    def run(document)\n"
            "      document.render_me\n    end\n  end\nend\n"
        ),
        "benchmark/bench.rb": "class Document\n  def render_me\n  end\nend\n",
    }
    found = repo_edges(tmp_path, "r", files, ("calls",))
    assert {(e[1], e[3]) for e in found if e[0] == "r/lib/app/renderer.rb#App.Renderer.run"} == {
        ("r/lib/app/document.rb#App.Document.render_me", 0.5)
    }


def test_a_ruby_constant_from_outside_is_never_a_guess_by_name(tmp_path: Path) -> None:
    """Jekyll: `File.join(…)` went to its `PathManager.join` (129 wrong callers),
    `SafeYAML.load` and `Marshal.load` to `Cache#load`. A capitalised receiver the
    repository defines no class or module of is the language's or a gem's."""
    files = {
        "lib/app/cache.rb": "module App\n  class Cache\n    def load(path)\n    end\n  end\nend\n",
        # a `File` nested elsewhere is no `File` the reader can see
        "lib/app/renderer/file.rb": (
            "module App\n  module Renderer\n    class File\n      def join(a)\n      end\n"
            "    end\n  end\nend\n"
        ),
        "lib/app/paths.rb": (
            "module App\n  module Paths\n    def self.join(a)\n    end\n  end\nend\n"
        ),
        "lib/app/reader.rb": (
            "module App\n  class Reader\n    def read(text)\n      YAML.load(text)\n"
            "      File.join(text)\n      Paths.join(text)\n      cache.load(text)\n"
            "    end\n  end\nend\n"
        ),
    }
    found = repo_edges(tmp_path, "r", files, ("calls",))
    read = "r/lib/app/reader.rb#App.Reader.read"
    assert {(e[1], e[3], e[4]) for e in found if e[0] == read} == {
        ("?YAML.load", 0.7, 4),
        ("?File.join", 0.7, 5),
        ("r/lib/app/paths.rb#App.Paths.join", 0.7, 6),
        # a lowercase receiver of unknown class: still a guess by name
        ("r/lib/app/cache.rb#App.Cache.load", 0.5, 7),
        ("?cache", 0.0, 7),  # the receiver: self's method, which Reader lacks
    }


def test_a_ruby_receiver_named_like_a_class_holds_one(tmp_path: Path) -> None:
    """maybe: `family.currency` and, in `Family`, `self.currency` (a column) went to
    `BalanceSheet#currency`, the one method so named (12 of the 15 wrong guesses in an
    audit of 30). `self` is the class it is written in; a lowercase receiver (`family`,
    `@family`, `Current.family`) holds the repository's one class so named (Rails's
    convention). Its methods, its bases' and its modules' are the candidates; a name
    none of them defines is an attribute or comes from outside: not guessed."""
    files = {
        "app/models/balance_sheet.rb": (
            "class BalanceSheet\n  def currency\n  end\n\n  def sync_later\n  end\nend\n"
        ),
        "app/models/concerns/syncable.rb": "module Syncable\n  def sync_later\n  end\nend\n",
        "app/models/family.rb": (
            "class Family < ApplicationRecord\n  include Syncable\n\n"
            "  def label\n    self.currency\n  end\n\n  def refresh\n  end\nend\n"
        ),
        "app/models/search.rb": (
            "class Search\n  def totals\n    family.currency\n    @family.sync_later\n"
            "    Current.family.refresh\n    row.currency\n    provider.fetch\n  end\nend\n"
        ),
        # `provider` may hold a subclass: its override is a candidate
        "app/models/provider.rb": "class Provider\nend\n",
        "app/models/stub_provider.rb": "class StubProvider < Provider\n  def fetch\n  end\nend\n",
        "app/models/feed.rb": "class Feed\n  def fetch\n  end\nend\n",
    }
    found = repo_edges(tmp_path, "r", files, ("calls",))
    m = "r/app/models"
    s = f"{m}/search.rb#Search.totals"
    assert {(e[0], e[1], e[3], e[4]) for e in found if e[1].startswith("r/")} == {
        (s, f"{m}/concerns/syncable.rb#Syncable.sync_later", 0.5, 4),
        (s, f"{m}/family.rb#Family.refresh", 0.5, 5),
        # `row` names no class: the guess by name stays
        (s, f"{m}/balance_sheet.rb#BalanceSheet.currency", 0.5, 6),
        (s, f"{m}/stub_provider.rb#StubProvider.fetch", 0.5, 7),
    }


def test_kotlin_receivers_of_a_declared_type_and_imported_names(tmp_path: Path) -> None:
    """spring-petclinic-kotlin: `owners.findById(id)` with `val owners: OwnerRepository`
    in the constructor was a guess among every `findById` (43 of 76 such Kotlin edges
    wrong), and `class Pet : NamedEntity()` a 0.5 guess by name though the file imports
    `pc.model.NamedEntity`."""
    files = {
        "pc/owner/OwnerRepository.kt": (
            "package pc.owner\n\ninterface OwnerRepository : Repository<Owner, Int> {\n"
            "    fun findById(id: Int): Owner\n}\n"
        ),
        "pc/owner/PetRepository.kt": (
            "package pc.owner\n\ninterface PetRepository : Repository<Pet, Int> {\n"
            "    fun findById(id: Int): Pet\n}\n"
        ),
        "pc/owner/OwnerController.kt": (
            "package pc.owner\n\n"
            "class OwnerController(val owners: OwnerRepository) {\n"
            "    fun show(id: Int) {\n"
            "        owners.findById(id)\n"
            "        owners.save(id)\n"
            "    }\n\n"
            "    fun edit(pets: PetRepository?) {\n"
            "        pets?.findById(1)\n"
            "    }\n}\n"
        ),
        "pc/model/NamedEntity.kt": "package pc.model\n\nopen class NamedEntity\n",
        "pc/other/NamedEntity.kt": "package pc.other\n\nopen class NamedEntity\n",
        "pc/owner/Pet.kt": (
            "package pc.owner\n\nimport pc.model.NamedEntity\n\nclass Pet : NamedEntity()\n"
        ),
    }
    found = repo_edges(tmp_path, "r", files, ("calls", "extends"))
    o = "r/pc/owner"
    assert {(s, t, c) for s, t, _, c, _ in found if t.startswith("r/")} == {
        (f"{o}/OwnerController.kt#OwnerController.show",
         f"{o}/OwnerRepository.kt#OwnerRepository.findById", 0.7),
        (f"{o}/OwnerController.kt#OwnerController.edit",
         f"{o}/PetRepository.kt#PetRepository.findById", 0.7),
        (f"{o}/Pet.kt#Pet", "r/pc/model/NamedEntity.kt#NamedEntity", 0.7),
    }  # fmt: skip
