"""Symbol arguments as people write them (`graph.lookup`): module and qualified name,
file and name or line, other languages' separators, and what an ambiguous or unknown
name answers. Two repositories: `lookup` (tests/fixtures/graph/lookup: a package, a
legacy copy of one module, a JS index file, a Go package) and the Python `shop`."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from codecompass.engine import Engine
from codecompass.errors import (
    AmbiguousSymbolError,
    Candidate,
    NotFoundError,
    OutOfRangeError,
)
from codecompass.graph.lookup import file_splits, module_forms, module_rooted, path_rooted
from tests.graph.helpers import add_fixture, workspace, write

L = "lookup"
RENDER = f"{L}/app/util.py#render"
LEGACY_RENDER = f"{L}/legacy/app/util.py#render"


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    tmp = tmp_path_factory.mktemp("lookup")
    with workspace(tmp) as e:
        add_fixture(e, tmp, "lookup", L)
        add_fixture(e, tmp, "python", "shop")
        yield e


@pytest.mark.parametrize(
    ("written", "node"),
    [
        # a module, then a qualified name; written from the root wins over a suffix
        ("app.util.render", RENDER),
        ("lookup.app.util.render", RENDER),
        ("legacy.app.util.render", LEGACY_RENDER),
        ("app.util.Page.render", f"{L}/app/util.py#Page.render"),
        ("util.Page.render", f"{L}/app/util.py#Page.render"),
        ("app.main", f"{L}/app/__init__.py#main"),  # a package's __init__
        ("web.render", f"{L}/web/index.js#render"),  # a JS index file
        ("store.Get", f"{L}/store/cache.go#Get"),  # a Go package is its folder
        ("store.Cache.Put", f"{L}/store/cache.go#Cache.Put"),
        ("cache.Get", f"{L}/store/cache.go#Get"),
        ("shop.util.render", "shop/shop/util.py#render"),
        ("app.util:render", RENDER),  # an entry point
        # a module, then a simple name
        ("util.run", f"{L}/app/util.py#Outer.Inner.run"),
        ("store.Put", f"{L}/store/cache.go#Cache.Put"),
        # qualified and simple names, other separators
        ("Page.render", f"{L}/app/util.py#Page.render"),
        ("Page::render", f"{L}/app/util.py#Page.render"),
        ("Page#render", f"{L}/app/util.py#Page.render"),
        ("run", f"{L}/app/util.py#Outer.Inner.run"),
        ("Inner.run", f"{L}/app/util.py#Outer.Inner.run"),  # the end of a qualified name
        ("Outer.Inner.run()", f"{L}/app/util.py#Outer.Inner.run"),
        # a file, then a name
        ("app/util.py#render", RENDER),
        ("app/util.py:render", RENDER),
        ("lookup/app/util.py:render", RENDER),
        ("legacy/app/util.py#render", LEGACY_RENDER),
        ("app/util.py:Inner.run", f"{L}/app/util.py#Outer.Inner.run"),
        ("index.js#render", f"{L}/web/index.js#render"),
        # a file and a line: the innermost symbol, else the file
        ("app/util.py:10", f"{L}/app/util.py#Page.render"),
        ("app/util.py:8", f"{L}/app/util.py#Page"),
        ("app/util.py:10:5", f"{L}/app/util.py#Page.render"),
        ("cache.go:8", f"{L}/store/cache.go#Get"),
        ("app/util.py:3", f"{L}/app/util.py"),
        # files and modules as files
        ("app/util.py", f"{L}/app/util.py"),
        ("app.util", f"{L}/app/util.py"),
        ("lookup/app/util.py", f"{L}/app/util.py"),
        (RENDER, RENDER),
        (L, L),
        # a JavaScript private member: as written, and without its `#` as people say it
        ("Queue.#drain", f"{L}/web/queue.js#Queue.#drain"),
        ("#drain", f"{L}/web/queue.js#Queue.#drain"),
        ("Queue.drain", f"{L}/web/queue.js#Queue.#drain"),
        ("Queue#drain", f"{L}/web/queue.js#Queue.#drain"),
        ("drain()", f"{L}/web/queue.js#Queue.#drain"),
        ("queue.js#drain", f"{L}/web/queue.js#Queue.#drain"),
        ("queue.js#Queue.#drain", f"{L}/web/queue.js#Queue.#drain"),
        ("web.queue.Queue.drain", f"{L}/web/queue.js#Queue.#drain"),
        # ... where a public member of the same name comes first
        ("Queue.size", f"{L}/web/queue.js#Queue.size"),
        ("size", f"{L}/web/queue.js#Queue.size"),
        ("Queue.#size", f"{L}/web/queue.js#Queue.#size"),
    ],
)
def test_each_written_form_names_one_node(engine: Engine, written: str, node: str) -> None:
    assert engine.graph.resolve_node(written) == node


def test_an_ambiguous_name_lists_ranked_candidates_and_how_to_pick(engine: Engine) -> None:
    with pytest.raises(AmbiguousSymbolError) as info:
        engine.callers("render")
    error = info.value
    # Four functions named exactly `render` tie; importance orders them (the one `main`
    # and `Page.render` call first; ids break a tie), then the method only named so.
    assert error.candidates == (
        Candidate(RENDER, "function", L, "app/util.py", 4, 1.0),
        Candidate(LEGACY_RENDER, "function", L, "legacy/app/util.py", 1, 1.0),
        Candidate(f"{L}/web/index.js#render", "function", L, "web/index.js", 1, 1.0),
        Candidate("shop/shop/util.py#render", "function", "shop", "shop/util.py", 1, 1.0),
        Candidate(f"{L}/app/util.py#Page.render", "method", L, "app/util.py", 9, 0.95),
        Candidate(f"{L}/tests/doubles.py#Page.render", "method", L, "tests/doubles.py", 4, 0.95),
    )
    assert str(error).splitlines() == [
        "'render' is ambiguous; 4 symbols match equally well (best first):",
        f"  {RENDER}  (function, line 4, score 1.00)",
        f"  {LEGACY_RENDER}  (function, line 1, score 1.00)",
        f"  {L}/web/index.js#render  (function, line 1, score 1.00)",
        "  shop/shop/util.py#render  (function, line 1, score 1.00)",
        f"  {L}/app/util.py#Page.render  (method, line 9, score 0.95)",
        f"  {L}/tests/doubles.py#Page.render  (method, line 4, score 0.95)",
    ]
    assert error.code == "ambiguous_symbol"
    assert error.for_cli().endswith(
        "\nRun the command again with one of these ids, or a longer name such as "
        "util.render or app/util.py:4."
    )
    assert error.for_mcp().endswith(
        "\nCall again with one of these ids, or a longer name such as util.render or app/util.py:4."
    )


@pytest.mark.parametrize(
    ("written", "ranked"),
    [
        # Three modules end in `util`, none written from its root: a tie.
        ("util.render", [RENDER, LEGACY_RENDER, "shop/shop/util.py#render"]),
        (
            "util.py#render",
            [RENDER, LEGACY_RENDER, "shop/shop/util.py#render", f"{L}/app/util.py#Page.render"],
        ),
        ("util.py", [f"{L}/app/util.py", "shop/shop/util.py", f"{L}/legacy/app/util.py"]),
    ],
)
def test_equally_good_readings_are_never_picked(
    engine: Engine, written: str, ranked: list[str]
) -> None:
    with pytest.raises(AmbiguousSymbolError, match=f"^'{written}' is ambiguous; 3 ") as info:
        engine.graph.resolve_node(written)
    assert [c.id for c in info.value.candidates] == ranked
    assert [c.score for c in info.value.candidates[:3]] == [1.0, 1.0, 1.0]


def test_code_is_chosen_over_a_test_double_of_the_same_name(engine: Engine) -> None:
    # tests/doubles.py holds a stand-in `Page` with its own `render`: the same written
    # name, score and rootedness as the real one, so only the place tells them apart.
    assert engine.graph.resolve_node("Page.render") == f"{L}/app/util.py#Page.render"
    assert engine.graph.resolve_node("Page") == f"{L}/app/util.py#Page"
    # Written to name the double, it is the double.
    assert engine.graph.resolve_node("doubles.Page.render") == f"{L}/tests/doubles.py#Page.render"
    # Ranked, the double comes after the code, not before it.
    ranked = engine.graph.lookup("Page.render")
    assert [(m.id, m.score) for m in ranked] == [
        (f"{L}/app/util.py#Page.render", 1.0),
        (f"{L}/tests/doubles.py#Page.render", 1.0),
    ]
    # A test function's own name outscores a method's, but the code still comes first.
    assert engine.graph.resolve_node("flush") == f"{L}/web/queue.js#Queue.flush"
    assert [(m.id, m.score) for m in engine.graph.lookup("flush")] == [
        (f"{L}/web/queue.js#Queue.flush", 0.95),
        (f"{L}/tests/doubles.py#flush", 1.0),
    ]
    assert engine.graph.resolve_node("doubles.flush") == f"{L}/tests/doubles.py#flush"


def test_a_repository_narrows_the_candidates(engine: Engine) -> None:
    graph = engine.graph
    assert graph.resolve_node("util.render", repo="shop") == "shop/shop/util.py#render"
    assert graph.resolve_node("util.py", repo="shop") == "shop/shop/util.py"
    with pytest.raises(AmbiguousSymbolError):
        graph.resolve_node("util.render", repo=L)


def test_a_misspelt_name_offers_close_names_and_picks_none(engine: Engine) -> None:
    with pytest.raises(NotFoundError) as info:
        engine.dependencies("Page.rendr")
    error = info.value
    assert [c.id for c in error.candidates][:1] == [f"{L}/app/util.py#Page.render"]
    assert all(c.score < 0.9 for c in error.candidates)
    assert str(error).startswith(
        f"Unknown symbol 'Page.rendr'. Closest: {L}/app/util.py#Page.render, "
    )
    assert error.for_cli().endswith("Find its exact name with `codecompass symbol Page.rendr`.")
    # Folded case is offered, not chosen.
    with pytest.raises(NotFoundError) as folded:
        engine.graph.resolve_node("PAGE.RENDER")
    assert folded.value.candidates[0] == Candidate(
        f"{L}/app/util.py#Page.render", "method", L, "app/util.py", 9, 0.85
    )


def test_a_line_outside_the_file_is_out_of_range(engine: Engine) -> None:
    with pytest.raises(OutOfRangeError, match=r"^Line 17 is outside the file \(lookup/app/"):
        engine.graph.resolve_node("app/util.py:17")
    assert str(pytest.raises(OutOfRangeError, engine.graph.resolve_node, "cache.go:0").value) == (
        "Line 0 is outside the file (lookup/store/cache.go has 9 lines); give a line inside it."
    )


def test_find_symbol_ranks_the_written_forms_first(engine: Engine) -> None:
    def top(name: str, n: int = 2) -> list[tuple[str, float, bool]]:
        return [(m.id, m.score, m.exact) for m in engine.find_symbol(name)[:n]]

    assert top("app.util.render") == [(RENDER, 1.0, True), (LEGACY_RENDER, 1.0, True)]
    assert top("legacy.app.util.render", 1) == [(LEGACY_RENDER, 1.0, True)]
    assert top("util.render", 3) == [
        (RENDER, 1.0, True),
        (LEGACY_RENDER, 1.0, True),
        ("shop/shop/util.py#render", 1.0, True),
    ]
    assert top("app/util.py:10", 1) == [(f"{L}/app/util.py#Page.render", 1.0, True)]
    assert top("util.py:render", 1) == [(RENDER, 1.0, True)]
    assert top("Inner.run", 1) == [(f"{L}/app/util.py#Outer.Inner.run", 0.9, False)]
    # A simple name inside a file counts as exact; the file narrows it to one.
    assert top("app/util.py#run", 1) == [(f"{L}/app/util.py#Outer.Inner.run", 0.95, True)]
    # find_symbol answers symbols only: a line above every symbol names none.
    assert engine.find_symbol("app/util.py:3") == []
    assert [m.kind for m in engine.find_symbol("store.Get", kind="method")] == []


def test_the_callers_of_a_module_function(engine: Engine) -> None:
    result = engine.callers("app.util.render")
    assert result.root == RENDER
    assert sorted((e.source, e.evidence_line) for e in result.edges) == [
        (f"{L}/app/__init__.py#main", 7),
        (f"{L}/app/util.py#Page.render", 10),
    ]


def test_the_callers_of_a_private_member_named_without_its_hash(engine: Engine) -> None:
    result = engine.callers("Queue.drain")
    assert result.root == f"{L}/web/queue.js#Queue.#drain"
    assert [(e.source, e.evidence_line) for e in result.edges] == [
        (f"{L}/web/queue.js#Queue.flush", 15)
    ]
    assert [(m.id, m.score, m.exact) for m in engine.find_symbol("drain")[:1]] == [
        (f"{L}/web/queue.js#Queue.#drain", 0.9, False)
    ]


def test_the_callers_of_an_overloaded_method_are_those_of_every_overload(engine: Engine) -> None:
    # MediatR's `Mediator.Send` has three overloads: `callers` answered "ambiguous" and
    # offered a "longer name" that named all three again.
    record = f"{L}/ledger/Ledger.java#Ledger.record"
    result = engine.callers("Ledger.record")
    assert (result.root, result.overloads) == (record, [f"{record}@10"])
    assert sorted((e.source, e.target, e.evidence_line) for e in result.edges) == [
        (f"{L}/ledger/Ledger.java#Audit.check", record, 22),
        (f"{L}/ledger/Ledger.java#Ledger.close", record, 15),
        (f"{L}/ledger/Ledger.java#Ledger.close", f"{record}@10", 16),  # record("closed")
    ]
    assert sorted(result.paths) == [
        [record, f"{L}/ledger/Ledger.java#Audit.check"],
        [record, f"{L}/ledger/Ledger.java#Ledger.close"],
    ]
    # One node is asked for: the overloads stay ambiguous there.
    with pytest.raises(AmbiguousSymbolError, match="2 symbols match equally well") as info:
        engine.node_details("Ledger.record")
    assert info.value.hint is not None
    assert info.value.hint.cli.endswith("or a longer name such as ledger/Ledger.java:6.")


def test_a_ruby_class_reopened_in_several_files_is_one(tmp_path: Path) -> None:
    """Jekyll's `Commands::Serve` is written in four files: `callers` answered
    "ambiguous" and offered names that matched all four again."""
    write(
        tmp_path / "r",
        {
            "lib/app/serve.rb": "module App\n  class Serve\n    def start\n    end\n  end\nend\n",
            "lib/app/serve/servlet.rb": (
                "module App\n  class Serve\n    def servlet\n      start\n    end\n  end\nend\n"
            ),
            "lib/app/cli.rb": (
                "module App\n  class Cli\n    def run\n      Serve.new\n    end\n  end\nend\n"
            ),
        },
    )
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "r", name="r")
        result = engine.callers("App.Serve")
    assert (result.root, result.overloads) == (
        "r/lib/app/serve.rb#App.Serve",
        ["r/lib/app/serve/servlet.rb#App.Serve"],
    )
    assert ("r/lib/app/cli.rb#App.Cli.run", "calls") in {(e.source, e.type) for e in result.edges}


def test_a_class_named_after_its_file_is_told_apart_by_package_or_line(tmp_path: Path) -> None:
    # Slim's `handle` suggested `MiddlewareDispatcher.MiddlewareDispatcher.addCallable.handle`,
    # no better than the name when two files hold a class of that name.
    java = "package {0};\n\npublic class Handler {{\n    public void handle() {{}}\n}}\n"
    php = "<?php\nclass Queue {\n    function push() {}\n}\n"
    write(
        tmp_path / "two",
        {
            "api/Handler.java": java.format("api"),
            "web/Handler.java": java.format("web"),
            "src/Queue.php": php,
            "lib/Queue.php": php,
        },
    )
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "two", name="two")
        hints = []
        for name in ("Handler.handle", "Queue.push"):
            with pytest.raises(AmbiguousSymbolError) as info:
                engine.callers(name)
            assert info.value.hint is not None
            hints.append(info.value.hint.cli.rpartition("such as ")[2])
        assert engine.callers("api.Handler.handle").root == "two/api/Handler.java#Handler.handle"
    assert hints == ["api.Handler.handle or api/Handler.java:4.", "lib/Queue.php:3."]


def test_a_terraform_resource_type_names_its_resources(tmp_path: Path) -> None:
    """`symbol aws_launch_template` found only fuzzy variable names: a resource is
    `aws_launch_template.this`, and its type no symbol of its own."""
    template = 'resource "aws_launch_template" "this" {\n  name = var.name\n}\n'
    cluster = 'resource "aws_eks_cluster" "this" {\n  name = var.name\n}\n'
    variable = 'variable "name" {\n  type = string\n}\n'
    write(
        tmp_path / "tf",
        {
            "modules/a/main.tf": template,
            "modules/b/main.tf": template + cluster,
            "variables.tf": variable,
        },
    )
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "tf", name="tf")
        found = [(m.id, m.score) for m in engine.find_symbol("aws_launch_template")][:2]
        with pytest.raises(AmbiguousSymbolError):
            engine.callers("aws_launch_template")
        chosen = engine.callers("aws_eks_cluster").root
        # A name that is a symbol is never read as a head.
        variable_root = engine.callers("var.name").root
    assert found == [
        ("tf/modules/a/main.tf#aws_launch_template.this", 0.9),
        ("tf/modules/b/main.tf#aws_launch_template.this", 0.9),
    ]
    assert chosen == "tf/modules/b/main.tf#aws_eks_cluster.this"
    assert variable_root == "tf/variables.tf#var.name"


def test_module_and_path_matching_rules() -> None:
    assert module_forms("rich/markup.py") == ["rich/markup"]
    assert module_forms("pkg/__init__.py") == ["pkg/__init__", "pkg"]
    assert module_forms("index.ts") == ["index", ""]
    assert module_forms("chi/mux.go") == ["chi/mux", "chi"]
    assert module_forms("Makefile") == ["Makefile"]
    assert module_forms("src/.hidden") == ["src/.hidden"]
    # True: written from the root (with or without the repository); False: by its end.
    assert module_rooted("markup", "rich", "markup.py") is True
    assert module_rooted("rich/markup", "rich", "markup.py") is True
    assert module_rooted("markup", "pip", "_vendor/rich/markup.py") is False
    assert module_rooted("arkup", "rich", "markup.py") is None
    assert module_rooted("chi", "chi", "mux.go") is True  # Go: the root folder's package
    assert path_rooted("./rich/markup.py", "rich", "markup.py") is True
    assert path_rooted("markup.py", "pip", "_vendor/rich/markup.py") is False
    assert path_rooted("up.py", "rich", "markup.py") is None
    assert file_splits("a/b.py#C.m") == [("a/b.py", "C.m")]
    assert file_splits("a/b.py:12:4") == [("a/b.py", "12")]
    assert file_splits("mod:func") == [("mod", "func")]
    assert file_splits("a#b:3") == [("a", "b:3"), ("a#b", "3")]
    assert file_splits(":x") == []


def test_a_name_declared_in_a_type_stub_means_the_code(tmp_path: Path) -> None:
    """attrs: `callers define` was ambiguous between `attr/_next_gen.py#define` and the two
    overloads `attrs/__init__.pyi` declares, and `callers attrs.define` walked from the
    stub, which no call resolves to: "(none)"."""
    stub = (
        "from typing import overload\n\n@overload\ndef define(cls: type) -> type: ...\n"
        "@overload\ndef define() -> object: ...\n\ndef fields(cls: type) -> tuple: ...\n"
    )
    files = {
        "attr/_next_gen.py": "def define(cls=None):\n    return cls\n",
        "attrs/__init__.py": "from attr._next_gen import define\n",
        "attrs/__init__.pyi": stub,
        "attr/_make.py": "def fields(cls):\n    return ()\n",
        "attr/_make.pyi": "def fields(cls: type) -> tuple: ...\n",
        "app.py": "import attrs\nfrom attr._make import fields\n\n\n"
        "@attrs.define\nclass Point:\n    pass\n\n\nprint(fields(Point))\n",
    }
    with workspace(tmp_path) as engine:
        write(tmp_path / "lib", files)
        engine.add_repo(tmp_path / "lib", name="lib")
        graph = engine.graph
        by_name = engine.callers("define")
        by_module = engine.callers("attrs.define")
        beside = graph.resolve_node("_make.fields")
        written = graph.resolve_node("lib/attrs/__init__.pyi#define")
        stub_only = graph.resolve_node("attrs/__init__.pyi:8")
    assert by_name.root == by_module.root == "lib/attr/_next_gen.py#define"
    assert [e.source for e in by_module.edges] == ["lib/app.py"]  # a decorator runs there
    assert beside == "lib/attr/_make.py#fields"  # a stub beside its module: the module's
    assert written == "lib/attrs/__init__.pyi#define"  # a node id is taken as written
    assert stub_only == "lib/attrs/__init__.pyi#fields"  # no code declares it: the stub


def test_a_namespace_qualified_name_picks_the_folder_that_mirrors_it(tmp_path: Path) -> None:
    """`App\\Services\\FavoriteService::toggle` (a PHP stack frame) and eShop's
    `eShop.Basket.API.Extensions.Extensions.AddApplicationServices` were unknown or seven
    equal fuzzy matches: C# and PHP symbols are named without their namespace, which
    their folders mirror."""
    service = (
        "<?php\nnamespace App\\Services;\n\nclass FavoriteService\n{\n    function toggle() {}\n}\n"
    )
    extensions = (
        "namespace eShop.{0}.Extensions;\n\npublic static class Extensions\n{{\n"
        "    public static void AddApplicationServices(this object builder) {{ }}\n}}\n"
    )
    files = {
        "app/Services/FavoriteService.php": service,
        "src/Basket.API/Extensions/Extensions.cs": extensions.format("Basket.API"),
        "src/Catalog.API/Extensions/Extensions.cs": extensions.format("Catalog.API"),
    }
    write(tmp_path / "shop", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "shop", name="shop")
        php = engine.callers("App\\Services\\FavoriteService::toggle").root
        rooted = engine.callers("\\App\\Services\\FavoriteService").root
        csharp = [
            (m.id, m.score)
            for m in engine.find_symbol(
                "eShop.Basket.API.Extensions.Extensions.AddApplicationServices"
            )
        ]
        chosen = engine.callers("eShop.Catalog.API.Extensions.Extensions.AddApplicationServices")
    assert php == "shop/app/Services/FavoriteService.php#FavoriteService.toggle"
    assert rooted == "shop/app/Services/FavoriteService.php#FavoriteService"
    basket = "shop/src/Basket.API/Extensions/Extensions.cs#Extensions.AddApplicationServices"
    assert csharp[0] == (basket, 0.9)
    assert all(score < 0.9 for _, score in csharp[1:])
    assert chosen.root == basket.replace("Basket", "Catalog")


def test_code_answers_a_name_before_its_interface_declarations(tmp_path: Path) -> None:
    """online-boutique: `callers CartService.AddItem` was ambiguous between five
    `.proto` copies and the C# implementation (listed last, the proto suggested); the
    code is what one asks about, its rpc reachable from it."""
    proto = 'syntax = "proto3";\n\nservice CartService {\n  rpc AddItem(Req) returns (Res);\n}\n'
    files = {
        "protos/demo.proto": proto,
        "cart/protos/demo.proto": proto,
        "cart/CartService.cs": (
            "public class CartService : Cart.CartServiceBase\n{\n"
            "    public override Task<Empty> AddItem(Req request, ServerCallContext context)"
            " => null;\n}\n"
        ),
    }
    write(tmp_path / "shop", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "shop", name="shop")
        found = engine.callers("CartService.AddItem")
    assert found.root == "shop/cart/CartService.cs#CartService.AddItem"


def test_copies_of_one_interface_declaration_answer_as_one(tmp_path: Path) -> None:
    """online-boutique: `callers Charge` was ambiguous between four copies of
    `demo.proto`'s `PaymentService.Charge` (each service keeps one), though any of them
    stands for the one rpc; the copy nearest the root answers. Two different rpcs of one
    name stay ambiguous."""
    proto = 'syntax = "proto3";\n\nservice PaymentService {\n  rpc Charge(Req) returns (Res);\n}\n'
    other = 'syntax = "proto3";\n\nservice Billing {\n  rpc Charge(Req) returns (Res);\n}\n'
    files = {
        "src/payment/proto/demo.proto": proto,
        "protos/demo.proto": proto,
        "src/ads/proto/demo.proto": proto + "// a copy that differs by a line\n",
    }
    write(tmp_path / "shop", files)
    write(tmp_path / "bill", {"billing.proto": other})
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "shop", name="shop")
        assert engine.callers("Charge").root == "shop/protos/demo.proto#PaymentService.Charge"
        engine.add_repo(tmp_path / "bill", name="bill")
        with pytest.raises(AmbiguousSymbolError) as raised:
            engine.callers("Charge")
    assert len(raised.value.candidates) == 4


def test_a_name_that_also_names_members_says_so(tmp_path: Path) -> None:
    """requests: `callers get` walked `api.py#get` (the one top-level `get`, read
    completely) and said nothing of `Session.get` and `RequestsCookieJar.get`, which the
    name also reads (an agent asking about them got another function's callers)."""
    files = {
        "api.py": "def get(url):\n    return url\n\n\ndef fetch():\n    return get('x')\n",
        "sessions.py": "class Session:\n    def get(self, url):\n        return url\n",
    }
    write(tmp_path / "web", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "web", name="web")
        found = engine.callers("get")
        named = engine.callers("api.get")
    assert found.root == "web/api.py#get"
    assert found.limits == [
        "'get' also names web/sessions.py#Session.get; pass its id to walk it instead."
    ]
    assert named.limits == []
