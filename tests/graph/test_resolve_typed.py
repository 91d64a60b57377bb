"""Resolution of Go, Java, C# and Rust through packages, imports and declared types: the
exact edge set of one fixture repository per language. Each has a field of an external
type (unresolved, never a look-alike), a package or static function named like a method,
a function value, a call through an interface, inheritance or embedding, and a receiver
of unknown type (guessed by name below the confidence of typed resolution)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codecompass.models import EdgeQuery
from tests.graph.helpers import Edge, add_fixture, edges, repo_edges, workspace, write

G = "go"
J = "java/src/main/java/com/shop"
C = "csharp/src/Shop"
R = "rust/src"

GO: set[Edge] = {
    (f"{G}/main.go", "?fmt", "imports", 1.0, 4),
    # Another module's `store` package: outside the repository (go.mod), not ./store.
    (f"{G}/main.go", "?example.com/other/store", "imports", 1.0, 6),
    (f"{G}/main.go", f"{G}/store/cache.go", "imports", 1.0, 7),
    (f"{G}/main.go", f"{G}/store/store.go", "imports", 1.0, 7),
    (f"{G}/main.go#main", f"{G}/store/store.go#New", "calls", 0.9, 11),
    (f"{G}/main.go#main", "?fmt.Println", "calls", 1.0, 12),
    # `s := store.New()`: New's declared result type.
    (f"{G}/main.go#main", f"{G}/store/store.go#Store.Get", "calls", 0.8, 12),
    (f"{G}/main.go#main", f"{G}/store/store.go#Store.Close", "calls", 0.8, 13),
    # A function of the package.
    (f"{G}/main.go#main", f"{G}/main.go#helper", "calls", 1.0, 14),
    (f"{G}/main.go#main", "?undefinedThing", "calls", 0.0, 15),
    (f"{G}/main.go#main", "?fmt.Println", "calls", 1.0, 16),
    # `store.Lookup` is the package function, not the method Cache.Lookup.
    (f"{G}/main.go#main", f"{G}/store/store.go#Lookup", "calls", 0.9, 16),
    # Promoted through the embedded *Store.
    (f"{G}/main.go#main", f"{G}/store/store.go#Store.Get", "calls", 0.8, 18),
    (f"{G}/main.go#main", f"{G}/store/cache.go#Cache.Close", "calls", 0.8, 19),
    # Through an interface: its method.
    (f"{G}/main.go#main", f"{G}/store/store.go#Getter.Get", "calls", 0.8, 21),
    # A function passed as a value.
    (f"{G}/main.go#main", f"{G}/main.go#show", "references", 1.0, 22),
    (f"{G}/main.go#main", f"{G}/store/store.go#Each", "calls", 0.9, 22),
    # The repository's types a declaration or a literal names: a result, a parameter, a
    # composite literal, a declared variable (not the receiver's in its own methods, nor
    # `sync.Mutex` from outside the repository).
    (f"{G}/store/store.go#New", f"{G}/store/store.go#Store", "references", 1.0, 17),
    (f"{G}/store/store.go#New", f"{G}/store/store.go#Store", "references", 1.0, 18),
    (f"{G}/store/store.go#Lookup", f"{G}/store/store.go#Getter", "references", 1.0, 32),
    (f"{G}/store/store.go#Each", f"{G}/store/store.go#Store", "references", 1.0, 37),
    (f"{G}/main.go#main", f"{G}/store/cache.go#Cache", "references", 0.9, 17),
    (f"{G}/main.go#main", f"{G}/store/store.go#Getter", "references", 0.9, 20),
    # Outside the repository: never the repository's store.New.
    (f"{G}/main.go#main", "?store.New", "calls", 1.0, 23),
    (f"{G}/main.go#main", "?things", "calls", 0.0, 24),
    # Unknown receiver: methods by name, below typed confidence.
    (f"{G}/main.go#main", f"{G}/store/cache.go#Cache.Close", "calls", 0.4, 25),
    (f"{G}/main.go#main", f"{G}/store/store.go#Store.Close", "calls", 0.4, 25),
    (f"{G}/main.go#show", "?fmt.Println", "calls", 1.0, 29),
    (f"{G}/store/cache.go#Cache", f"{G}/store/store.go#Store", "extends", 1.0, 5),
    (f"{G}/store/cache.go#Cache.Close", f"{G}/store/store.go#Store.Close", "calls", 0.8, 11),
    (f"{G}/store/cache.go#Cache.Lookup", f"{G}/store/store.go#Store.Get", "calls", 0.8, 17),
    (f"{G}/store/store.go", "?sync", "imports", 1.0, 3),
    (f"{G}/store/store.go#Each", "?fn", "calls", 0.0, 39),
    (f"{G}/store/store.go#Lookup", f"{G}/store/store.go#Getter.Get", "calls", 0.8, 33),
    # A field of an external type: unresolved, not a look-alike.
    (f"{G}/store/store.go#Store.Get", "?sync.Mutex.Lock", "calls", 0.8, 23),
    (f"{G}/store/store.go#Store.Get", "?sync.Mutex.Unlock", "calls", 0.8, 24),
}

JAVA: set[Edge] = {
    (f"{J}/Circle.java#Circle", f"{J}/Base.java#Base", "extends", 1.0, 3),
    (f"{J}/Circle.java#Circle", f"{J}/Shape.java#Shape", "implements", 1.0, 3),
    (f"{J}/Main.java", f"{J}/Circle.java", "imports", 1.0, 3),
    (f"{J}/Main.java", f"{J}/Circle.java#Circle", "imports", 1.0, 3),
    (f"{J}/Main.java", f"{J}/util/Util.java", "imports", 1.0, 4),
    (f"{J}/Main.java", "?java.util.List", "imports", 1.0, 5),
    (f"{J}/Main.java", f"{J}/util/Util.java", "imports", 1.0, 6),
    (f"{J}/Main.java", f"{J}/util/Util.java#Util.twice", "imports", 1.0, 6),
    (f"{J}/Main.java#Main", "?StringBuilder", "calls", 1.0, 9),
    # Declared types of the repository: locals' (`List<Shape>`: its argument), a parameter's.
    (f"{J}/Main.java#Main.main", f"{J}/Circle.java#Circle", "references", 1.0, 12),
    (f"{J}/Main.java#Main.main", f"{J}/Shape.java#Shape", "references", 1.0, 17),
    (f"{J}/Main.java#Main.main", f"{J}/Shape.java#Shape", "references", 1.0, 20),
    (f"{J}/Main.java#Main.print", f"{J}/Shape.java#Shape", "references", 1.0, 31),
    (f"{J}/util/Util.java#Util.area", f"{J}/Shape.java#Shape", "references", 1.0, 6),
    (f"{J}/Main.java#Main.main", f"{J}/Circle.java#Circle", "calls", 1.0, 12),
    # `new Circle(…)` runs its constructor too.
    (f"{J}/Main.java#Main.main", f"{J}/Circle.java#Circle.Circle", "calls", 1.0, 12),
    (f"{J}/Main.java#Main.main", "?System.out.println", "calls", 1.0, 13),
    (f"{J}/Main.java#Main.main", f"{J}/Circle.java#Circle.area", "calls", 0.8, 13),
    # Inherited.
    (f"{J}/Main.java#Main.main", f"{J}/Base.java#Base.describe", "calls", 0.8, 14),
    (f"{J}/Main.java#Main.main", f"{J}/Main.java#Main.helper", "calls", 0.8, 15),
    # The overload taking one argument.
    (f"{J}/Main.java#Main.main", f"{J}/Main.java#Main.helper@29", "calls", 0.8, 16),
    # Through an interface: its method.
    (f"{J}/Main.java#Main.main", f"{J}/Shape.java#Shape.area", "calls", 0.8, 18),
    # The static method of Util, not a same-named method elsewhere.
    (f"{J}/Main.java#Main.main", f"{J}/util/Util.java#Util.area", "calls", 0.8, 19),
    (f"{J}/Main.java#Main.main", "?java.util.List.of", "calls", 1.0, 20),
    # A method reference.
    (f"{J}/Main.java#Main.main", f"{J}/Main.java#Main.print", "references", 0.8, 21),
    # An untyped lambda parameter: by name, below typed confidence.
    (f"{J}/Main.java#Main.main", f"{J}/Circle.java#Circle.area", "calls", 0.2667, 22),
    (f"{J}/Main.java#Main.main", f"{J}/Shape.java#Shape.area", "calls", 0.2667, 22),
    (f"{J}/Main.java#Main.main", f"{J}/util/Util.java#Util.area", "calls", 0.2667, 22),
    # A static import.
    (f"{J}/Main.java#Main.main", f"{J}/util/Util.java#Util.twice", "calls", 1.0, 23),
    # A field of an external type.
    (f"{J}/Main.java#Main.main", "?StringBuilder.append", "calls", 0.8, 24),
    (f"{J}/Main.java#Main.main", f"{J}/Main.java#Main", "calls", 1.0, 24),
    (f"{J}/util/Util.java", f"{J}/Shape.java", "imports", 1.0, 3),
    (f"{J}/util/Util.java", f"{J}/Shape.java#Shape", "imports", 1.0, 3),
    (f"{J}/util/Util.java#Util.area", f"{J}/Shape.java#Shape.area", "calls", 0.8, 7),
}

CSHARP: set[Edge] = {
    (f"{C}/Circle.cs#Circle", f"{C}/Base.cs#Base", "extends", 1.0, 3),
    (f"{C}/Circle.cs#Circle", f"{C}/Shape.cs#IShape", "implements", 1.0, 3),
    # a property with an arrow body is a method, the caller of what its body calls
    (f"{C}/Circle.cs#Circle.Diameter", f"{C}/Circle.cs#Circle.Radius", "calls", 0.8, 14),
    # an operator is a method, `operator+`, the caller of what its body calls
    (f"{C}/Circle.cs#Circle.operator+", f"{C}/Circle.cs#Circle", "calls", 1.0, 21),
    (f"{C}/Circle.cs#Circle.operator+", f"{C}/Circle.cs#Circle.Circle", "calls", 1.0, 21),
    (f"{C}/Circle.cs#Circle.operator+", f"{C}/Circle.cs#Circle.Radius", "calls", 0.8, 21),
    (f"{C}/Program.cs", "?System", "imports", 1.0, 1),
    (f"{C}/Program.cs", "?System.Collections.Generic", "imports", 1.0, 2),
    (f"{C}/Program.cs", "?System.Text", "imports", 1.0, 3),
    (f"{C}/Program.cs", f"{C}/Util/Geometry.cs", "imports", 1.0, 4),
    (f"{C}/Program.cs", f"{C}/Util/Geometry.cs", "imports", 1.0, 5),
    (f"{C}/Program.cs", f"{C}/Util/Geometry.cs#Geometry", "imports", 1.0, 5),
    (f"{C}/Program.cs#Program", "?StringBuilder", "calls", 1.0, 11),
    # Declared types of the repository: a property's, a local's, a parameter's.
    (f"{C}/Program.cs#Program", f"{C}/Circle.cs#Circle", "references", 1.0, 13),
    (f"{C}/Program.cs#Program.Main", f"{C}/Shape.cs#IShape", "references", 1.0, 22),
    (f"{C}/Program.cs#Program.Print", f"{C}/Shape.cs#IShape", "references", 1.0, 37),
    (f"{C}/Util/Geometry.cs#Geometry.Area", f"{C}/Shape.cs#IShape", "references", 1.0, 5),
    (f"{C}/Program.cs#Program.Main", f"{C}/Circle.cs#Circle", "calls", 1.0, 17),
    # `new Circle(…)` runs its constructor too.
    (f"{C}/Program.cs#Program.Main", f"{C}/Circle.cs#Circle.Circle", "calls", 1.0, 17),
    (f"{C}/Program.cs#Program.Main", "?Console.WriteLine", "calls", 1.0, 18),
    (f"{C}/Program.cs#Program.Main", f"{C}/Circle.cs#Circle.Area", "calls", 0.8, 18),
    # Inherited.
    (f"{C}/Program.cs#Program.Main", f"{C}/Base.cs#Base.Describe", "calls", 0.8, 19),
    (f"{C}/Program.cs#Program.Main", f"{C}/Program.cs#Program.Helper", "calls", 0.8, 20),
    # The overload taking one argument.
    (f"{C}/Program.cs#Program.Main", f"{C}/Program.cs#Program.Helper@35", "calls", 0.8, 21),
    # Through an interface: its method.
    (f"{C}/Program.cs#Program.Main", f"{C}/Shape.cs#IShape.Area", "calls", 0.8, 23),
    # The static method, not Circle.Area.
    (f"{C}/Program.cs#Program.Main", f"{C}/Util/Geometry.cs#Geometry.Area", "calls", 0.8, 24),
    # A method group passed as a value.
    (f"{C}/Program.cs#Program.Main", f"{C}/Program.cs#Program.Print", "references", 0.8, 26),
    # An untyped lambda parameter: by name, below typed confidence.
    (f"{C}/Program.cs#Program.Main", f"{C}/Circle.cs#Circle.Area", "calls", 0.2667, 27),
    (f"{C}/Program.cs#Program.Main", f"{C}/Shape.cs#IShape.Area", "calls", 0.2667, 27),
    (f"{C}/Program.cs#Program.Main", f"{C}/Util/Geometry.cs#Geometry.Area", "calls", 0.2667, 27),
    # `using static`.
    (f"{C}/Program.cs#Program.Main", f"{C}/Util/Geometry.cs#Geometry.Twice", "calls", 0.8, 28),
    # A field of an external type.
    (f"{C}/Program.cs#Program.Main", "?StringBuilder.Append", "calls", 0.8, 29),
    (f"{C}/Program.cs#Program.Main", f"{C}/Program.cs#Program", "calls", 1.0, 29),
    # A property's declared type.
    (f"{C}/Program.cs#Program.Main", f"{C}/Circle.cs#Circle.Area", "calls", 0.8, 30),
    (f"{C}/Program.cs#Program.Main", f"{C}/Program.cs#Program", "calls", 1.0, 30),
    (f"{C}/Util/Geometry.cs#Geometry.Area", f"{C}/Shape.cs#IShape.Area", "calls", 0.8, 5),
}

RUST: set[Edge] = {
    # The repository's types a declaration names: a field's, a parameter's, a result's,
    # through references, slices, `Box<dyn …>` and `Option<&…>`.
    (f"{R}/store.rs#Store", f"{R}/geometry.rs#Circle", "references", 0.9, 4),
    (f"{R}/store.rs#Store.add", f"{R}/geometry.rs#Circle", "references", 0.9, 13),
    (f"{R}/store.rs#Store.first", f"{R}/geometry.rs#Circle", "references", 0.9, 17),
    (f"{R}/store.rs#Store.all", f"{R}/geometry.rs#Circle", "references", 0.9, 21),
    (f"{R}/lib.rs#total", f"{R}/geometry.rs#Shape", "references", 0.9, 7),
    (f"{R}/lib.rs#wrap", f"{R}/geometry.rs#Circle", "references", 0.9, 35),
    (f"{R}/geometry.rs#area_of", f"{R}/geometry.rs#Shape", "references", 1.0, 25),
    # `impl Shape for Circle`.
    (f"{R}/geometry.rs#Circle", f"{R}/geometry.rs#Shape", "implements", 1.0, 19),
    (f"{R}/geometry.rs#Shape.describe", "?String.from", "calls", 1.0, 5),
    # Through a trait object: the trait's method.
    (f"{R}/geometry.rs#area_of", f"{R}/geometry.rs#Shape.area", "calls", 0.8, 26),
    (f"{R}/lib.rs", f"{R}/geometry.rs", "imports", 1.0, 4),
    (f"{R}/lib.rs", f"{R}/geometry.rs#Circle", "imports", 1.0, 4),
    (f"{R}/lib.rs", f"{R}/geometry.rs#Shape", "imports", 1.0, 4),
    (f"{R}/lib.rs", "?std.fs.File", "imports", 1.0, 5),
    (f"{R}/lib.rs#apply", "?f", "calls", 0.0, 32),
    (f"{R}/lib.rs#run", f"{R}/geometry.rs#Circle.new", "calls", 0.8, 12),
    (f"{R}/lib.rs#run", f"{R}/geometry.rs#Circle.area", "calls", 0.8, 13),
    # A trait's default method, through `impl Shape for Circle`.
    (f"{R}/lib.rs#run", f"{R}/geometry.rs#Shape.describe", "calls", 0.8, 14),
    (f"{R}/lib.rs#run", f"{R}/store.rs#Store.new", "calls", 0.8, 15),
    # `let mut store = store::Store::new(…)`: the local, not the module, from here on.
    (f"{R}/lib.rs#run", f"{R}/store.rs#Store.add", "calls", 0.8, 16),
    # A field of an external type.
    (f"{R}/lib.rs#run", "?std.fs.File.sync_all", "calls", 0.8, 17),
    (f"{R}/lib.rs#run", f"{R}/lib.rs#apply", "calls", 1.0, 18),
    # A function passed as a value.
    (f"{R}/lib.rs#run", f"{R}/lib.rs#helper", "references", 1.0, 18),
    (f"{R}/lib.rs#run", f"{R}/store.rs#Store.first", "calls", 0.8, 19),
    # `if let Some(first) = store.first()`: first is a &Circle.
    (f"{R}/lib.rs#run", f"{R}/geometry.rs#Circle.area", "calls", 0.8, 20),
    (f"{R}/lib.rs#run", f"{R}/geometry.rs#area_of", "calls", 0.9, 22),
    (f"{R}/lib.rs#run", f"{R}/store.rs#Store.all", "calls", 0.8, 23),
    (f"{R}/lib.rs#run", f"{R}/geometry.rs#Shape.describe", "calls", 0.8, 24),
    (f"{R}/lib.rs#run", "?unknown_thing", "calls", 0.0, 26),
    (f"{R}/lib.rs#run", f"{R}/geometry.rs#Circle.area", "calls", 0.2667, 26),
    (f"{R}/lib.rs#run", f"{R}/geometry.rs#Shape.area", "calls", 0.2667, 26),
    (f"{R}/lib.rs#run", f"{R}/geometry.rs#Square.area", "calls", 0.2667, 26),
    # An untyped closure parameter: by name, below typed confidence.
    (f"{R}/lib.rs#total", f"{R}/geometry.rs#Circle.area", "calls", 0.2667, 8),
    (f"{R}/lib.rs#total", f"{R}/geometry.rs#Shape.area", "calls", 0.2667, 8),
    (f"{R}/lib.rs#total", f"{R}/geometry.rs#Square.area", "calls", 0.2667, 8),
    # `Some(…)`: the prelude's, no edge (as Python's `len`).
    (f"{R}/lib.rs#wrap", f"{R}/geometry.rs#Circle.area", "calls", 0.8, 36),
    (f"{R}/store.rs", f"{R}/geometry.rs", "imports", 1.0, 1),
    (f"{R}/store.rs", f"{R}/geometry.rs#Circle", "imports", 1.0, 1),
    (f"{R}/store.rs#Store.new", "?Vec.new", "calls", 1.0, 10),
}


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [("go", GO), ("java", JAVA), ("csharp", CSHARP), ("rust", RUST)],
)
def test_typed_edges(tmp_path: Path, fixture: str, expected: set[Edge]) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, fixture, fixture)
        assert edges(engine) == expected


def test_guesses_stay_below_typed_confidence(tmp_path: Path) -> None:
    """`--min-confidence 0.6` keeps what declared types resolved and drops every guess."""
    with workspace(tmp_path) as engine:
        for fixture in ("go", "java", "csharp", "rust"):
            add_fixture(engine, tmp_path, fixture, fixture)
        rows = engine.backend.edges.edges(EdgeQuery(types=["calls"]))
        guessed = {round(e.confidence, 4) for e in rows if e.via == "name"}
        typed = {round(e.confidence, 4) for e in rows if e.resolved and e.via != "name"}
        assert guessed == {0.4, 0.2667}
        assert min(typed) == 0.8


def test_a_changed_return_type_relinks_its_callers(tmp_path: Path) -> None:
    """main.go is not edited, but what `store.New()` returns is: its calls follow."""
    with workspace(tmp_path) as engine:
        repo = add_fixture(engine, tmp_path, "go", "go")
        store = repo / "store" / "store.go"
        text = store.read_text(encoding="utf-8")
        store.write_text(
            text.replace(
                "func New() *Store {\n\treturn &Store{", "func New() *Cache {\n\treturn &Cache{"
            ),
            encoding="utf-8",
        )
        engine.index(repo, name="go")
        found = {e for e in edges(engine, ("calls",)) if e[0] == "go/main.go#main" and e[4] == 13}
        assert found == {("go/main.go#main", "go/store/cache.go#Cache.Close", "calls", 0.8, 13)}


def test_a_crate_of_the_same_workspace_is_resolved_not_external(tmp_path: Path) -> None:
    """ripgrep's `ignore` crate uses `globset::GlobSetBuilder`, and its `core` the
    `Searcher` of `grep_searcher` through the `grep` facade's `pub extern crate
    grep_searcher as searcher`: crates of its own workspace, where every such call was an
    external one or a guess by name."""
    files = {
        "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
        "crates/globset/Cargo.toml": '[package]\nname = "globset"\n',
        "crates/globset/src/lib.rs": (
            "pub struct GlobSetBuilder;\n\n"
            "impl GlobSetBuilder {\n"
            "    pub fn new() -> GlobSetBuilder {\n        GlobSetBuilder\n    }\n}\n"
        ),
        "crates/searcher/Cargo.toml": (
            '[package]\nname = "grep-searcher"\n\n[lib]\npath = "src/searcher.rs"\n'
        ),
        "crates/searcher/src/searcher.rs": (
            "pub struct Searcher;\n\n"
            "impl Searcher {\n    pub fn search(&self) -> bool {\n        true\n    }\n}\n"
        ),
        "crates/grep/Cargo.toml": '[package]\nname = "grep"\n',
        "crates/grep/src/lib.rs": "pub extern crate grep_searcher as searcher;\n",
        "crates/ignore/Cargo.toml": (
            '[package]\nname = "ignore"\n\n[dependencies]\n'
            'globset = { path = "../globset" }\nregex = "1"\n'
        ),
        "crates/ignore/src/lib.rs": (
            "use globset::GlobSetBuilder;\nuse regex::Regex;\n\n"
            "pub fn build() {\n    let builder = GlobSetBuilder::new();\n}\n\n"
            "pub fn direct(searcher: &grep_searcher::Searcher) -> bool {\n"
            "    globset::GlobSetBuilder::new();\n    searcher.search()\n}\n\n"
            "pub fn facade(searcher: &grep::searcher::Searcher) -> bool {\n"
            "    searcher.search()\n}\n"
        ),
    }
    found = {e for e in repo_edges(tmp_path, "rg", files) if e[0].startswith("rg/crates/ignore/")}
    lib = "rg/crates/ignore/src/lib.rs"
    assert found == {
        (lib, "rg/crates/globset/src/lib.rs", "imports", 1.0, 1),
        (lib, "rg/crates/globset/src/lib.rs#GlobSetBuilder", "imports", 1.0, 1),
        (lib, "?regex.Regex", "imports", 1.0, 2),
        (f"{lib}#build", "rg/crates/globset/src/lib.rs#GlobSetBuilder.new", "calls", 0.8, 5),
        (f"{lib}#direct", "rg/crates/globset/src/lib.rs#GlobSetBuilder.new", "calls", 0.8, 9),
        (f"{lib}#direct", "rg/crates/searcher/src/searcher.rs#Searcher.search", "calls", 0.8, 10),
        # Through `grep`'s `pub extern crate grep_searcher as searcher`.
        (f"{lib}#facade", "rg/crates/searcher/src/searcher.rs#Searcher.search", "calls", 0.8, 14),
        # The parameters' types (read through the crate and through the facade).
        (f"{lib}#direct", "rg/crates/searcher/src/searcher.rs#Searcher", "references", 0.9, 8),
        (f"{lib}#facade", "rg/crates/searcher/src/searcher.rs#Searcher", "references", 0.9, 13),
    }


def test_rust_code_naming_a_type_references_it(tmp_path: Path) -> None:
    """`callers` of a Rust struct had listed only the traits' impls, never the code using
    it: a struct literal, a `let` with a type, a tuple struct's and an enum variant's
    fields. `Self` is the type's own."""
    files = {
        "Cargo.toml": '[package]\nname = "app"\n',
        "src/config.rs": (
            "pub struct Config {\n    pub name: String,\n}\n\n"
            "impl Config {\n    pub fn new() -> Self {\n        Self { name: String::new() }\n"
            "    }\n}\n"
        ),
        "src/lib.rs": (
            "mod config;\nuse crate::config::Config;\n\n"
            "pub struct Shared(Config);\n\n"
            "pub enum Event {\n    Loaded { config: Config },\n    Saved(Config),\n}\n\n"
            "pub fn load() -> bool {\n    let c: Config = Config { name: String::new() };\n"
            "    c.name.is_empty()\n}\n"
        ),
    }
    found = {e for e in repo_edges(tmp_path, "app", files) if e[2] == "references"}
    config = "app/src/config.rs#Config"
    assert found == {
        ("app/src/lib.rs#Shared", config, "references", 0.9, 4),
        ("app/src/lib.rs#Event", config, "references", 0.9, 7),
        ("app/src/lib.rs#Event", config, "references", 0.9, 8),
        ("app/src/lib.rs#load", config, "references", 0.9, 12),  # the type and the literal
    }


def test_rust_reexported_function_and_locals_named_like_modules(tmp_path: Path) -> None:
    """`just`: `pub(crate) use crate::{helper::helper}` re-exports a function under its
    module's name, and `helper()` was read as the module (no edge: `callers` of 12 such
    helpers found none); `|name| name.lexeme()` and `Err(name) => …` made `name` the
    module `name.rs` (`?src/name.rs#.lexeme`, 114 such ids)."""
    files = {
        "Cargo.toml": '[package]\nname = "r"\n',
        "src/lib.rs": (
            "pub(crate) use crate::{helper::helper, name::Name};\n\n"
            "mod helper;\nmod name;\nmod user;\n"
        ),
        "src/helper.rs": "pub(crate) fn helper() -> usize {\n  1\n}\n",
        "src/name.rs": (
            "pub(crate) struct Name {\n  pub(crate) text: String,\n}\n\n"
            "impl Name {\n  pub(crate) fn lexeme(&self) -> &str {\n    &self.text\n  }\n}\n"
        ),
        "src/user.rs": (
            "use super::*;\n\n"
            "pub(crate) fn total(names: &[Name]) -> usize {\n"
            "  let n: usize = names.iter().map(|name| name.lexeme().len()).sum();\n"
            "  helper() + crate::helper() + n\n}\n\n"
            "pub(crate) fn first(found: Result<Name, Name>) -> usize {\n"
            "  match found {\n    Ok(name) => name.lexeme().len(),\n    Err(_) => 0,\n  }\n}\n"
        ),
    }
    found = {
        (e[0], e[1], e[3], e[4])
        for e in repo_edges(tmp_path, "r", files)
        if e[0].startswith("r/src/user.rs#") and e[2] == "calls"
    }
    assert found == {
        ("r/src/user.rs#total", "r/src/helper.rs#helper", 1.0, 5),
        # untyped: a guess by name, never the module
        ("r/src/user.rs#total", "r/src/name.rs#Name.lexeme", 0.4, 4),
        ("r/src/user.rs#total", "?name.lexeme().len", 0.0, 4),
        ("r/src/user.rs#first", "r/src/name.rs#Name.lexeme", 0.4, 10),
        ("r/src/user.rs#first", "?name.lexeme().len", 0.0, 10),
    }


def test_rust_deref_target_and_enum_variants(tmp_path: Path) -> None:
    """`just`: `Name` derefs to `Token` (`type Target = Token`), and `name.lexeme()` went
    to `?std.ops.Deref.lexeme` (61 such); `Problem::Missing(…)` went to the
    `Display` it implements (`?std.fmt.Display.Missing`, 85 such)."""
    files = {
        "Cargo.toml": '[package]\nname = "e"\n',
        "src/lib.rs": (
            "use std::{fmt::{self, Display, Formatter}, ops::Deref};\n\n"
            "pub struct Token {\n  pub text: String,\n}\n\n"
            "impl Token {\n  pub fn lexeme(&self) -> &str {\n    &self.text\n  }\n}\n\n"
            "pub struct Name {\n  token: Token,\n}\n\n"
            "impl Deref for Name {\n  type Target = Token;\n\n"
            "  fn deref(&self) -> &Token {\n    &self.token\n  }\n}\n\n"
            "pub enum Problem {\n  Missing(String),\n}\n\n"
            "impl Display for Problem {\n"
            "  fn fmt(&self, f: &mut Formatter) -> fmt::Result {\n    Ok(())\n  }\n}\n\n"
            "pub fn check(name: &Name) -> Problem {\n"
            "  Problem::Missing(name.lexeme().to_string())\n}\n"
        ),
    }
    found = {
        (e[1], e[3])
        for e in repo_edges(tmp_path, "e", files)
        if e[0] == "e/src/lib.rs#check" and e[2] == "calls"
    }
    assert found == {("e/src/lib.rs#Token.lexeme", 0.8), ("?Problem.Missing", 0.0)}


def test_rust_std_method_names_are_not_guessed(tmp_path: Path) -> None:
    """`just`: 24 of 25 guesses at its `Value.len` were a `Vec`'s or a `str`'s `len` on a
    receiver of unknown type (here a `?` on a `Result` alias of another file, whose name
    does not say so). Typed, the repository's own is still found."""
    files = {
        "Cargo.toml": '[package]\nname = "v"\n',
        "src/lib.rs": (
            "mod sizes;\n\npub type R<T> = Result<T, String>;\n\n"
            "pub struct Value {\n  items: Vec<u8>,\n}\n\n"
            "impl Value {\n  pub fn len(&self) -> usize {\n    self.items.len()\n  }\n}\n"
        ),
        "src/sizes.rs": (
            "use crate::{Value, R};\n\n"
            "fn load() -> R<Vec<u8>> {\n  Ok(Vec::new())\n}\n\n"
            "pub fn sizes(value: &Value) -> R<usize> {\n"
            "  let words = load()?;\n  let n = words.len();\n  Ok(n + value.len())\n}\n"
        ),
    }
    found = {
        (e[1], e[3])
        for e in repo_edges(tmp_path, "v", files)
        if e[0] == "v/src/sizes.rs#sizes" and e[2] == "calls" and e[1].startswith("v/")
    }
    assert found == {("v/src/lib.rs#Value.len", 0.8), ("v/src/sizes.rs#load", 1.0)}


def test_rust_result_aliases_unwrap_with_the_question_mark(tmp_path: Path) -> None:
    """`just`: 283 functions return a crate alias of `Result` (`RunResult<'a, T>`); after
    `Self::compile(…)?` the next call was guessed by name (`Thing.go` and `Other.go` at
    0.4). An alias is known where its file defines it, and anywhere by its name's
    `Result` ending."""
    files = {
        "Cargo.toml": '[package]\nname = "r"\n',
        "src/lib.rs": (
            "pub(crate) type RunResult<'a, T = ()> = Result<T, &'a str>;\n\n"
            "mod thing;\nmod user;\n\npub(crate) use thing::{MyAlias, Other, Thing};\n"
        ),
        "src/thing.rs": (
            "use super::*;\n\npub(crate) type MyAlias<T> = Result<T, String>;\n\n"
            "pub(crate) struct Thing;\npub(crate) struct Other;\n\n"
            "impl Thing {\n"
            "  pub(crate) fn load() -> MyAlias<Thing> {\n    Ok(Thing)\n  }\n\n"
            "  pub(crate) fn run<'a>() -> RunResult<'a, Other> {\n    Ok(Other)\n  }\n\n"
            "  pub(crate) fn go(&self) -> usize {\n    1\n  }\n}\n\n"
            "impl Other {\n  pub(crate) fn go(&self) -> usize {\n    2\n  }\n}\n"
        ),
        "src/user.rs": (
            "use super::*;\n\n"
            "pub(crate) fn via_alias() -> MyAlias<usize> {\n"
            "  let thing = Thing::load()?;\n  let other = Thing::run()?;\n"
            "  Ok(thing.go() + other.go())\n}\n"
        ),
    }
    found = {
        (e[1], e[3], e[4])
        for e in repo_edges(tmp_path, "r", files)
        if e[0] == "r/src/user.rs#via_alias" and e[2] == "calls"
    }
    assert found == {
        ("r/src/thing.rs#Thing.load", 0.8, 4),
        ("r/src/thing.rs#Thing.run", 0.8, 5),
        ("r/src/thing.rs#Thing.go", 0.8, 6),
        ("r/src/thing.rs#Other.go", 0.8, 6),
    }


def test_rust_calls_inside_macros_are_calls(tmp_path: Path) -> None:
    """`just`: 15 of `usize.ordinal`'s 16 calls, and most of `Token.lexeme`'s, are inside
    `format!`/`write!`/`assert_eq!`, whose arguments the grammar leaves as tokens."""
    files = {
        "Cargo.toml": '[package]\nname = "m"\n',
        "src/lib.rs": (
            "use std::fmt;\n\npub struct Token {\n  pub text: String,\n}\n\n"
            "impl Token {\n  pub fn lexeme(&self) -> &str {\n    &self.text\n  }\n}\n\n"
            "pub fn helper(n: usize) -> usize {\n  n\n}\n\n"
            "pub struct Item {\n  token: Token,\n}\n\n"
            "impl fmt::Display for Item {\n"
            "  fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n"
            '    write!(f, "{} {}", self.token.lexeme(), crate::helper(1))\n  }\n}\n\n'
            "pub fn show(t: &Token) -> String {\n"
            '  assert_eq!(helper(2), 2, "{}", format!("{}", t.lexeme()));\n'
            '  format!("{}", t.lexeme())\n}\n'
        ),
    }
    found = {
        (e[0].rsplit("#", 1)[-1], e[1], e[3], e[4])
        for e in repo_edges(tmp_path, "m", files)
        if e[2] == "calls" and e[1].startswith("m/")
    }
    assert found == {
        ("Item.fmt", "m/src/lib.rs#Token.lexeme", 0.8, 23),
        ("Item.fmt", "m/src/lib.rs#helper", 0.9, 23),  # crate::helper
        ("show", "m/src/lib.rs#helper", 1.0, 28),
        ("show", "m/src/lib.rs#Token.lexeme", 0.8, 28),
        ("show", "m/src/lib.rs#Token.lexeme", 0.8, 29),
    }


def test_rust_extension_traits_on_outside_types(tmp_path: Path) -> None:
    """`just`: `impl CommandExt for Command` and `impl Ordinal for usize` add methods to
    types of the standard library; their calls were external (`callers
    Command.shell_arg`: none of 6; `usize.ordinal`: none of 16)."""
    files = {
        "Cargo.toml": '[package]\nname = "x"\n',
        "src/lib.rs": (
            "mod ext;\nmod paint;\nmod style;\nmod user;\n\n"
            "pub(crate) use ext::{CommandExt, Ordinal};\n"
        ),
        "src/ext.rs": (
            "use std::process::{Command, ExitStatus};\n\n"
            "pub(crate) trait CommandExt {\n  fn status_guard(self) -> ExitStatus;\n"
            "  fn quiet_status(self) -> ExitStatus;\n}\n\n"
            "impl CommandExt for Command {\n"
            "  fn status_guard(mut self) -> ExitStatus {\n    self.status().unwrap()\n  }\n\n"
            "  fn quiet_status(self) -> ExitStatus {\n    self.status_guard()\n  }\n}\n\n"
            "pub(crate) trait Ordinal {\n  fn ordinal(self) -> usize;\n}\n\n"
            "impl Ordinal for usize {\n  fn ordinal(self) -> usize {\n    self + 1\n  }\n}\n"
        ),
        "src/user.rs": (
            "use std::process::Command;\n\nuse crate::{CommandExt, Ordinal};\n\n"
            "pub(crate) fn run_it(n: usize) -> bool {\n"
            '  let cmd = Command::new("true");\n'
            "  let _ = n.ordinal();\n"
            "  cmd.status_guard().success()\n}\n"
        ),
        # A type of the crate's own named like an outside one is not extended by it.
        "src/style.rs": (
            "pub struct Style;\n\nimpl Style {\n  pub fn new() -> Style {\n    Style\n  }\n}\n"
        ),
        "src/paint.rs": "use ansi::Style;\n\npub fn red() {\n  let _ = Style::new();\n}\n",
    }
    found = {
        (e[0].rsplit("#", 1)[-1], e[1], e[3], e[4])
        for e in repo_edges(tmp_path, "x", files)
        if e[2] == "calls" and e[1].startswith("x/")
    }
    assert found == {
        ("Command.quiet_status", "x/src/ext.rs#Command.status_guard", 0.8, 14),
        ("run_it", "x/src/ext.rs#usize.ordinal", 0.8, 7),
        ("run_it", "x/src/ext.rs#Command.status_guard", 0.8, 8),
    }


def test_global_usings_reach_every_file_of_their_project(tmp_path: Path) -> None:
    """eShop's GlobalUsings.cs (`global using eShop.Ordering.Domain;`) is how its
    handlers see their repositories: every call and base through them was external
    (440 calls, 56 bases). Another project (its own .csproj) does not see them, and
    removing one re-resolves the files that relied on it."""
    files = {
        "Ordering.Domain/Ordering.Domain.csproj": "<Project />\n",
        "Ordering.Domain/IOrderRepository.cs": (
            "namespace Shop.Ordering.Domain;\n\n"
            "public interface IOrderRepository\n{\n    Order Get(int id);\n}\n\n"
            "public class Order\n{\n    public void Ship() { }\n}\n"
        ),
        "Ordering.Api/Ordering.Api.csproj": "<Project />\n",
        "Ordering.Api/GlobalUsings.cs": (
            "global using Shop.Ordering.Domain;\n"
            "global using Clock = Shop.Ordering.Api.Infrastructure.SystemClock;\n"
        ),
        "Ordering.Api/Infrastructure/SystemClock.cs": (
            "namespace Shop.Ordering.Api.Infrastructure;\n\n"
            "public static class SystemClock\n{\n    public static int Now() => 0;\n}\n"
        ),
        "Ordering.Api/Commands/ShipOrderHandler.cs": (
            "namespace Shop.Ordering.Api.Commands;\n\n"
            "public class ShipOrderHandler(IOrderRepository orders)\n{\n"
            "    public void Handle(int id)\n    {\n"
            "        orders.Get(id).Ship();\n        Clock.Now();\n    }\n}\n"
        ),
        "Ordering.Api/Data/OrderRepository.cs": (
            "namespace Shop.Ordering.Api.Data;\n\n"
            "public class OrderRepository : IOrderRepository\n{\n"
            "    public Order Get(int id) => new Order();\n}\n"
        ),
        "Web/Web.csproj": "<Project />\n",
        # a project file's `<Using Include>` is a global using of its project
        "Admin/Admin.csproj": (
            '<Project>\n  <ItemGroup>\n    <Using Include="Shop.Ordering.Domain" />\n'
            "  </ItemGroup>\n</Project>\n"
        ),
        "Admin/Audit.cs": (
            "namespace Shop.Admin;\n\n"
            "public class Audit\n{\n"
            "    public void Check(IOrderRepository orders) => orders.Get(1);\n}\n"
        ),
        "Web/Page.cs": (
            "namespace Shop.Web;\n\n"
            "public class Page\n{\n"
            "    public void Show(IOrderRepository orders) => orders.Get(1);\n}\n"
        ),
    }
    handler = "shop/Ordering.Api/Commands/ShipOrderHandler.cs#ShipOrderHandler.Handle"
    domain = "shop/Ordering.Domain/IOrderRepository.cs"
    with workspace(tmp_path) as engine:
        write(tmp_path / "shop", files)
        engine.add_repo(tmp_path / "shop", name="shop")
        found = {e[:4] for e in edges(engine, ("calls", "implements", "extends"))}
        assert {e for e in found if e[0] == handler} == {
            (handler, f"{domain}#IOrderRepository.Get", "calls", 0.8),
            (handler, f"{domain}#Order.Ship", "calls", 0.8),
            (handler, "shop/Ordering.Api/Infrastructure/SystemClock.cs#SystemClock.Now",
             "calls", 0.8),
        }  # fmt: skip
        repository = "shop/Ordering.Api/Data/OrderRepository.cs#OrderRepository"
        assert (repository, f"{domain}#IOrderRepository", "implements", 0.9) in found
        # Web is another project: its IOrderRepository is not the domain's.
        show = "shop/Web/Page.cs#Page.Show"
        assert {e for e in found if e[0] == show} == {(show, "?IOrderRepository.Get", "calls", 0.8)}
        check = "shop/Admin/Audit.cs#Audit.Check"
        assert (check, f"{domain}#IOrderRepository.Get", "calls", 0.8) in found

        usings = tmp_path / "shop" / "Ordering.Api" / "GlobalUsings.cs"
        usings.write_text(files["Ordering.Api/GlobalUsings.cs"].split("\n", 1)[1], "utf-8")
        engine.index(tmp_path / "shop", name="shop")
        found = {e[:4] for e in edges(engine, ("calls",)) if e[0] == handler}
        assert (handler, f"{domain}#IOrderRepository.Get", "calls", 0.8) not in found
        # and a project file's item, removed, re-resolves its project's files
        (tmp_path / "shop" / "Admin" / "Admin.csproj").write_text("<Project />\n", "utf-8")
        engine.index(tmp_path / "shop", name="shop")
        found = {e[:4] for e in edges(engine, ("calls",)) if e[0] == check}
        assert found == {(check, "?IOrderRepository.Get", "calls", 0.8)}


def test_a_keyword_type_is_the_platforms_not_a_member_of_an_outside_base(
    tmp_path: Path,
) -> None:
    """eShop's `BasketService : Basket.BasketBase` called `string.IsNullOrEmpty`, read as
    `?Basket.BasketBase.string.IsNullOrEmpty` (a member the outside base might have):
    `string` is a keyword type. A capitalized name (`Guid`) may still be such a member."""
    service = (
        "namespace Shop;\n\npublic class Service : Basket.BasketBase\n{\n"
        "    public bool Check(string id)\n    {\n        Guid.NewGuid();\n"
        "        return string.IsNullOrEmpty(id) || int.TryParse(id, out _);\n    }\n}\n"
    )
    found = repo_edges(tmp_path, "shop", {"Service.cs": service})
    assert found == {
        ("shop/Service.cs#Service", "?Basket.BasketBase", "extends", 1.0, 3),
        ("shop/Service.cs#Service.Check", "?Basket.BasketBase.Guid.NewGuid", "calls", 0.8, 7),
    }


def test_callers_of_a_type_are_the_code_naming_it_and_deriving_from_it(tmp_path: Path) -> None:
    """eShop's `callers IBasketRepository` found no one (the repository is injected,
    never called), nor `callers ShipOrderCommand` its handler (`IRequestHandler<
    ShipOrderCommand, bool>`): a declared type named no edge in C# or Java."""
    files = {
        "IRepo.cs": "namespace S;\n\npublic interface IRepo\n{\n    int Get();\n}\n",
        "RedisRepo.cs": "namespace S;\n\npublic class RedisRepo : IRepo\n{\n"
        "    public int Get() => 1;\n}\n",
        "ShipCmd.cs": "namespace S;\n\npublic record ShipCmd(int Id);\n",
        "Handler.cs": (
            "namespace S;\n\npublic class Handler : IHandler<ShipCmd>\n{\n"
            "    private readonly IRepo _repo;\n\n"
            "    public Handler(IRepo repo) { _repo = repo; }\n\n"
            "    public int Run(ShipCmd cmd)\n    {\n        return _repo.Get();\n    }\n}\n"
        ),
        "Shop.java": (
            "package s;\n\nimport java.util.List;\n\npublic class Shop {\n"
            "    List<Order> open(Order first) {\n        return List.of(first);\n    }\n}\n\n"
            "class Order {}\n"
        ),
    }
    write(tmp_path / "s", files)
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "s", name="s")
        repo_users = engine.callers("IRepo")
        command_users = engine.callers("ShipCmd")
        order_users = engine.callers("Order")
    rows = {(e.source, e.type, e.evidence_line) for e in repo_users.edges}
    assert rows == {
        ("s/RedisRepo.cs#RedisRepo", "implements", 3),
        ("s/Handler.cs#Handler", "references", 5),
        ("s/Handler.cs#Handler.Handler", "references", 7),
    }
    assert {(e.source, e.type, e.evidence_line) for e in command_users.edges} == {
        ("s/Handler.cs#Handler", "references", 3),
        ("s/Handler.cs#Handler.Run", "references", 9),
    }
    # the return type's argument and the parameter, once each line
    assert {(e.source, e.type, e.evidence_line) for e in order_users.edges} == {
        ("s/Shop.java#Shop.open", "references", 6),
    }


def test_an_extension_method_of_the_repository_is_called_on_an_outside_object(
    tmp_path: Path,
) -> None:
    """eShop's `Program.cs` wires everything through extension methods on outside builders
    (`builder.AddApplicationServices()`, `builder.AddRabbitMqEventBus("bus")`): 83 of its
    89 `this` methods had no caller. Each service has its own `AddApplicationServices`: a
    project's own comes first."""
    extensions = (
        "namespace {0};\n\npublic static class Extensions\n{{\n"
        "    public static void AddApplicationServices(this IHostApplicationBuilder builder)\n"
        '    {{\n        builder.AddRabbitMqEventBus("bus");\n    }}\n}}\n'
    )
    bus = (
        "namespace EventBus;\n\npublic static class BusExtensions\n{\n"
        "    public static IEventBusBuilder AddRabbitMqEventBus(this IHostApplicationBuilder b,"
        " string name) => null;\n\n"
        # an overload taking other arguments is not the call's
        "    public static IEventBusBuilder AddRabbitMqEventBus(this IHostApplicationBuilder b,"
        " string name, int retries, bool durable) => null;\n}\n"
    )
    files = {
        "Basket.API/Basket.API.csproj": "<Project />\n",
        "Basket.API/Extensions.cs": extensions.format("Basket.API"),
        "Basket.API/Program.cs": (
            "var builder = WebApplication.CreateBuilder(args);\n"
            "builder.AddApplicationServices();\nbuilder.Build().Run();\n"
        ),
        "Ordering.API/Ordering.API.csproj": "<Project />\n",
        "Ordering.API/Extensions.cs": extensions.format("Ordering.API"),
        "EventBus/EventBus.csproj": "<Project />\n",
        "EventBus/BusExtensions.cs": bus,
    }
    found = {
        (e[0], e[1], e[3])
        for e in repo_edges(tmp_path, "shop", files, ("calls",))
        if e[1].startswith("shop/") and e[2] == "calls"
    }
    basket = "shop/Basket.API/Extensions.cs#Extensions.AddApplicationServices"
    ordering = "shop/Ordering.API/Extensions.cs#Extensions.AddApplicationServices"
    bus_method = "shop/EventBus/BusExtensions.cs#BusExtensions.AddRabbitMqEventBus"
    assert found == {
        ("shop/Basket.API/Program.cs", basket, 0.7),
        (basket, bus_method, 0.7),
        (ordering, bus_method, 0.7),
    }


def test_a_java_record_accessor_is_no_call_of_its_components_type(tmp_path: Path) -> None:
    """spring-petclinic: `request.address()` on `record OwnerRequest(String address, …)`
    was a call of `?String`; the accessor gives the component, whose methods are called
    on (`request.name().trim()`, `request.owner().save()`)."""
    files = {
        "Owner.java": (
            "package pc;\n\npublic class Owner {\n    public void save() { }\n"
            "    public void setAddress(String a) { }\n}\n"
        ),
        "OwnerRequest.java": (
            "package pc;\n\npublic record OwnerRequest(String address, Owner owner) { }\n"
        ),
        "Mapper.java": (
            "package pc;\n\npublic class Mapper {\n"
            "    public void map(Owner owner, OwnerRequest request) {\n"
            "        owner.setAddress(request.address().trim());\n"
            "        request.owner().save();\n    }\n}\n"
        ),
    }
    found = repo_edges(tmp_path, "pc", files, ("calls",))
    assert found == {
        ("pc/Mapper.java#Mapper.map", "pc/Owner.java#Owner.setAddress", "calls", 0.8, 5),
        ("pc/Mapper.java#Mapper.map", "?String.trim", "calls", 0.8, 5),
        ("pc/Mapper.java#Mapper.map", "pc/Owner.java#Owner.save", "calls", 0.8, 6),
    }


def test_a_doc_link_names_the_type_of_its_own_package_first(tmp_path: Path) -> None:
    """spring-petclinic: `{@link PetType}` in customers' `PetRepository` was a guess
    among three `PetType` classes (customers', the gateway's, genai's) at 0.27."""
    files = {
        "customers/model/PetType.java": "package pc.customers.model;\n\nclass PetType { }\n",
        "gateway/dto/PetType.java": "package pc.gateway.dto;\n\nrecord PetType(int id) { }\n",
        "genai/dto/PetType.java": "package pc.genai.dto;\n\nrecord PetType(int id) { }\n",
        "customers/model/PetRepository.java": (
            "package pc.customers.model;\n\n"
            "interface PetRepository {\n"
            "    /**\n     * Retrieve all {@link PetType}s from the data store.\n     */\n"
            "    java.util.List<Object> findPetTypes();\n}\n"
        ),
    }
    found = repo_edges(tmp_path, "pc", files, ("references",))
    assert {(s, t, c) for s, t, _, c, _ in found} == {
        (
            "pc/customers/model/PetRepository.java#PetRepository.findPetTypes",
            "pc/customers/model/PetType.java#PetType",
            1.0,
        ),
    }


def test_a_rust_handlers_shared_state_is_its_type(tmp_path: Path) -> None:
    """A realworld actix app: `state.di_container.article_usecase.create_article(…)` with
    `state: web::Data<AppState>` was a call of `?actix_web.web.Data…` (and, by its
    name, a generated client of the OpenAPI document's `CreateArticle`)."""
    files = {
        "src/state.rs": (
            "pub struct AppState {\n    pub usecase: ArticleUsecase,\n}\n\n"
            "pub struct ArticleUsecase;\n\n"
            "impl ArticleUsecase {\n    pub fn create_article(&self) {}\n}\n"
        ),
        "src/controllers.rs": (
            "use actix_web::web;\nuse crate::state::AppState;\n\n"
            "pub async fn create(state: web::Data<AppState>) {\n"
            "    state.usecase.create_article();\n}\n"
        ),
    }
    found = repo_edges(tmp_path, "app", files, ("calls",))
    assert {(s, t) for s, t, *_ in found} == {
        ("app/src/controllers.rs#create", "app/src/state.rs#ArticleUsecase.create_article")
    }


def test_a_mockito_verification_calls_the_mocks_method(tmp_path: Path) -> None:
    """piggymetrics: `verify(authClient, times(1)).createUser(user)` (after `import
    static org.mockito.Mockito.*`) was a guess between the client's `createUser` and
    another service's controller's."""
    files = {
        "src/AuthClient.java": "interface AuthClient {\n    void createUser(User u);\n}\n",
        "src/UserController.java": (
            "class UserController {\n    public void createUser(User u) { }\n}\n"
        ),
        "src/AccountServiceTest.java": (
            "import static org.mockito.Mockito.*;\n\n"
            "class AccountServiceTest {\n    private AuthClient authClient;\n\n"
            "    void creates() {\n"
            "        verify(authClient, times(1)).createUser(null);\n    }\n}\n"
        ),
    }
    found = repo_edges(tmp_path, "app", files, ("calls",))
    assert {(s, t, c) for s, t, _, c, _ in found if t.startswith("app/")} == {
        ("app/src/AccountServiceTest.java#AccountServiceTest.creates",
         "app/src/AuthClient.java#AuthClient.createUser", 0.8),
    }  # fmt: skip


def test_a_property_with_a_body_read_as_a_receiver_is_its_type(tmp_path: Path) -> None:
    """Ombi: `IMovieRequestRepository MovieRepository => RequestService.MovieRequestService;`
    is a method symbol (it runs code), so `MovieRepository.Update(r)` was a guess by name
    (105 such call sites in its core); an auto-property's calls were typed."""
    source = (
        "namespace App\n{\n"
        "    public interface IMovieRepo\n    {\n        void Update(int id);\n    }\n\n"
        "    public class Service\n    {\n        public IMovieRepo Movies { get; set; }\n    }\n\n"
        "    public abstract class BaseEngine\n    {\n"
        "        protected Service RequestService { get; }\n"
        "        protected IMovieRepo MovieRepository => RequestService.Movies;\n\n"
        "        public void Save(int id)\n        {\n"
        "            MovieRepository.Update(id);\n        }\n    }\n}\n"
    )
    found = repo_edges(tmp_path, "app", {"A.cs": source}, ("calls",))
    save = {(e[1], e[3], e[4]) for e in found if e[0].endswith("#BaseEngine.Save")}
    assert save == {("app/A.cs#IMovieRepo.Update", 0.8, 20)}
