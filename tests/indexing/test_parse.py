"""Symbols and references for every supported language, and parse() never raising."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from codecompass.indexing import parse as parse_module
from codecompass.indexing import treesitter
from codecompass.indexing.languages import (
    LANGUAGES,
    TREE_SITTER_LANGUAGES,
    language_for_path,
)
from codecompass.indexing.markup import parse_markdown
from codecompass.indexing.parse import parse, parse_file
from codecompass.indexing.rules import collapse
from codecompass.models import ParsedFile, Symbol

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "languages"

FIXTURE_FILES = {
    "python": "python/auth.py",
    "javascript": "javascript/cart.js",
    "typescript": "typescript/users.ts",
    "tsx": "tsx/Profile.tsx",
    "go": "go/store.go",
    "java": "java/Library.java",
    "rust": "rust/shapes.rs",
    "c": "c/buffer.c",
    "cpp": "cpp/geometry.cpp",
    "csharp": "csharp/Inventory.cs",
    "ruby": "ruby/greeter.rb",
    "php": "php/UserController.php",
    "markdown": "markdown/guide.md",
    "rst": "rst/manual.rst",
}

EXPECTED_SYMBOLS: dict[str, list[tuple[str, str, int, int]]] = {
    "python": [
        ("MAX_RETRIES", "constant", 10, 10),
        ("_CACHE_SIZE", "constant", 11, 11),
        ("verify_token", "function", 15, 23),
        ("_compare", "function", 26, 27),
        ("Repository", "class", 30, 54),
        ("Repository.Entry", "class", 33, 37),
        ("Repository.Entry.touch", "method", 36, 37),
        ("Repository.__init__", "method", 39, 40),
        ("Repository.size", "method", 42, 44),
        ("Repository._evict", "method", 46, 47),
        ("Repository.save", "method", 49, 54),
        ("Repository.save.log", "function", 50, 51),
        ("AdminRepository", "class", 57, 65),
        ("AdminRepository.create", "method", 58, 65),
    ],
    "javascript": [
        ("TAX_RATE", "constant", 6, 6),
        ("total", "function", 8, 14),
        ("applyTax", "function", 16, 16),
        ("Cart", "class", 18, 39),
        ("Cart.constructor", "method", 21, 24),
        ("Cart.add", "method", 26, 30),
        ("Cart.#snapshot", "method", 32, 34),
        ("Cart.empty", "method", 36, 38),
        ("describe", "function", 41, 46),
        ("describe.line", "function", 42, 44),
    ],
    "typescript": [
        ("UserId", "type", 5, 6),
        ("Role", "enum", 8, 11),
        ("User", "interface", 13, 20),
        ("User.greet", "method", 19, 19),
        ("Entity", "interface", 22, 24),
        ("fetchUser", "function", 26, 29),
        ("toUser", "function", 31, 33),
        ("UserService", "class", 35, 51),
        ("UserService.find", "method", 39, 42),
        ("UserService.remember", "method", 44, 46),
        ("UserService.dispose", "method", 48, 50),
        ("Admin", "module", 53, 57),
        ("Admin.promote", "function", 54, 56),
        ("isAdmin", "function", 59, 59),
    ],
    "tsx": [
        ("ProfileProps", "interface", 4, 8),
        ("Mode", "type", 10, 10),
        ("ProfileCard", "function", 12, 24),
        ("ProfileCard.toggle", "function", 17, 17),
        ("ProfilePage", "class", 26, 34),
        ("ProfilePage.render", "method", 27, 29),
        ("ProfilePage.track", "method", 31, 33),
        ("initials", "function", 36, 38),
    ],
    "go": [
        ("MaxKeys", "constant", 9, 10),
        ("ErrFull", "variable", 12, 13),
        ("Store", "struct", 15, 19),
        ("Getter", "interface", 21, 24),
        ("Getter.Get", "method", 23, 23),
        ("entry", "type", 26, 26),
        ("New", "function", 28, 31),
        ("Store.Get", "method", 33, 39),
        ("Store.evict", "method", 41, 43),
        ("helper", "function", 45, 47),
    ],
    "java": [
        ("Library", "class", 6, 41),
        ("Library.Library", "method", 12, 14),
        ("Library.add", "method", 16, 21),
        ("Library.log", "method", 23, 25),
        ("Library.Loan", "class", 27, 35),
        ("Library.Loan.Loan", "method", 29, 30),
        ("Library.Loan.isOverdue", "method", 32, 34),
        ("Library.Status", "enum", 37, 40),
        ("Shelf", "interface", 43, 45),
        ("Shelf.add", "method", 44, 44),
    ],
    "rust": [
        ("SCALE", "constant", 6, 7),
        ("Shape", "trait", 9, 13),
        ("Shape.area", "method", 11, 12),
        ("Circle", "struct", 15, 19),
        ("Circle.new", "method", 22, 25),
        ("Circle.diameter", "method", 27, 29),
        ("Circle.area", "method", 33, 35),
        ("Kind", "enum", 38, 41),
        ("util", "module", 43, 47),
        ("util.clamp", "function", 44, 46),
        ("main", "function", 49, 53),
    ],
    "c": [
        ("BUFFER_MIN", "constant", 4, 4),
        ("Buffer", "struct", 6, 10),
        ("node", "struct", 12, 15),
        ("color", "enum", 17, 17),
        ("buffer_new", "function", 19, 27),
        ("grow", "function", 29, 33),
        ("buffer_free", "function", 35, 38),
    ],
    "cpp": [
        ("geo.Point", "struct", 6, 10),
        ("geo.Shape", "class", 12, 16),
        ("geo.Shape.~Shape", "method", 14, 14),
        ("geo.Circle", "class", 18, 31),
        ("geo.Circle.Circle", "method", 21, 21),
        ("geo.Circle.area", "method", 23, 25),
        ("geo.Circle.scale", "method", 28, 28),
        ("geo.detail.square", "function", 34, 34),
        ("geo.distance", "function", 37, 39),
        ("geo.Circle.print", "method", 43, 46),
        ("clamp", "function", 48, 51),
    ],
    "csharp": [
        ("Inventory", "class", 6, 36),
        ("Inventory.Inventory", "method", 13, 15),
        ("Inventory.Add", "method", 17, 23),
        ("Inventory.Count", "method", 25, 28),
        ("Inventory.Dispose", "method", 30, 30),
        ("Inventory.Entry", "struct", 32, 35),
        ("IInventory", "interface", 38, 41),
        ("IInventory.Add", "method", 40, 40),
        ("Unit", "enum", 43, 43),
        # properties with code are methods; an auto-property is data
        ("Shelf", "class", 45, 62),
        ("Shelf.Empty", "method", 51, 52),
        ("Shelf.Size", "method", 54, 57),
        # operators are methods named as C++ names them
        ("Shelf.operator==", "method", 59, 59),
        ("Shelf.operator!=", "method", 61, 61),
    ],
    "ruby": [
        ("Greetings", "module", 4, 35),
        # Ruby keeps the comment above a body's first statement beside the body
        ("Greetings.DEFAULT", "constant", 6, 7),
        ("Greetings.Greeter", "class", 8, 30),
        ("Greetings.Greeter.initialize", "method", 12, 14),
        ("Greetings.Greeter.greet", "method", 16, 19),
        ("Greetings.Greeter.default", "method", 21, 23),
        ("Greetings.Greeter.phrase", "method", 27, 29),
        ("Greetings.version", "method", 32, 34),
        ("main", "function", 37, 39),
    ],
    "php": [
        ("UserController", "class", 8, 38),
        ("UserController.show", "method", 15, 22),
        ("UserController.render", "method", 24, 27),
        ("UserController.authorize", "method", 29, 32),
        ("UserController.legacy", "method", 34, 37),
        ("HasRoutes", "interface", 40, 43),
        ("HasRoutes.routes", "method", 42, 42),
        ("Loggable", "trait", 45, 51),
        ("Loggable.log", "method", 47, 50),
        ("format_name", "function", 53, 57),
    ],
    "markdown": [
        ("Code Compass", "section", 1, 24),
        ("Code Compass > Install", "section", 5, 14),
        ("Code Compass > Install > From source", "section", 9, 14),
        ("Code Compass > Usage", "section", 16, 17),
        ("Code Compass > Configuration", "section", 19, 24),
        ("Code Compass > Configuration > Deep heading", "section", 24, 24),
        ("Advanced", "section", 26, 29),
    ],
    "rst": [
        ("User Manual", "section", 1, 27),
        ("User Manual > Installation", "section", 7, 22),
        ("User Manual > Installation > From source", "section", 14, 22),
        ("User Manual > Installation > From source > Options", "section", 19, 22),
        ("User Manual > Usage", "section", 24, 27),
    ],
}

# (language, qualified name, field, expected value)
SPOT_CHECKS: list[tuple[str, str, str, object]] = [
    # Python
    (
        "python",
        "verify_token",
        "signature",
        "def verify_token(token: str, *, leeway: int = 0) -> bool",
    ),
    (
        "python",
        "verify_token",
        "doc",
        "Return True when the token signature matches.\n\nLeeway is given in seconds.",
    ),
    ("python", "verify_token", "header_end_line", 17),
    ("python", "_compare", "exported", False),
    ("python", "Repository", "signature", "class Repository(Generic[T])"),
    ("python", "Repository", "doc", "Keeps records in memory."),
    ("python", "Repository.Entry.touch", "parent", "Repository.Entry"),
    ("python", "Repository.__init__", "exported", True),
    ("python", "Repository._evict", "exported", False),
    ("python", "Repository.size", "start_line", 42),
    ("python", "Repository.size", "header_end_line", 43),
    ("python", "Repository.save.log", "exported", False),
    ("python", "Repository.save.log", "parent", "Repository.save"),
    (
        "python",
        "AdminRepository.create",
        "signature",
        "def create(name: str, admin: bool = True) -> AdminRepository",
    ),
    ("python", "AdminRepository.create", "header_end_line", 62),
    (
        "python",
        "AdminRepository",
        "signature",
        "class AdminRepository(Repository[UserModel], metaclass=Session)",
    ),
    ("python", "MAX_RETRIES", "signature", "MAX_RETRIES = 3"),
    ("python", "_CACHE_SIZE", "exported", False),
    # JavaScript
    ("javascript", "total", "signature", "export function total(items)"),
    ("javascript", "total", "doc", "Sum the line totals of a cart.\n@param {Array} items"),
    ("javascript", "total", "header_end_line", 12),
    ("javascript", "applyTax", "signature", "const applyTax = (amount) =>"),
    ("javascript", "applyTax", "exported", True),  # via export { applyTax }
    ("javascript", "describe", "exported", False),
    ("javascript", "Cart", "signature", "export class Cart extends EventEmitter"),
    ("javascript", "Cart.add", "doc", "Add one item and notify listeners."),
    ("javascript", "Cart.add", "exported", True),
    ("javascript", "Cart.#snapshot", "exported", False),
    ("javascript", "Cart.empty", "signature", "static empty()"),
    ("javascript", "describe.line", "exported", False),
    ("javascript", "describe.line", "parent", "describe"),
    # TypeScript
    (
        "typescript",
        "fetchUser",
        "signature",
        "export async function fetchUser(id: string): Promise<User>",
    ),
    ("typescript", "UserId", "doc", "Identifier of a stored user."),
    ("typescript", "UserId", "signature", "export type UserId = string"),
    ("typescript", "User", "signature", "export interface User extends Entity"),
    ("typescript", "User", "doc", "A registered account."),
    ("typescript", "User", "header_end_line", 16),
    ("typescript", "Entity", "exported", False),
    ("typescript", "UserService", "start_line", 35),  # the decorator line
    (
        "typescript",
        "UserService",
        "signature",
        "export class UserService extends BaseService implements Disposable",
    ),
    ("typescript", "UserService.find", "doc", "Look a user up, hitting the cache first."),
    ("typescript", "UserService.find", "exported", True),
    ("typescript", "UserService.remember", "exported", False),
    ("typescript", "Admin.promote", "exported", True),
    ("typescript", "Admin.promote", "parent", "Admin"),
    ("typescript", "isAdmin", "signature", "export const isAdmin = (user: User): boolean =>"),
    # TSX
    (
        "tsx",
        "ProfileCard",
        "signature",
        "export const ProfileCard = ({ name, avatarUrl }: ProfileProps) =>",
    ),
    ("tsx", "ProfileCard", "doc", "Shows a user's name and picture."),
    ("tsx", "ProfileCard", "header_end_line", 15),
    ("tsx", "ProfilePage", "exported", True),
    ("tsx", "ProfilePage.track", "exported", False),
    ("tsx", "Mode", "exported", False),
    # Go
    ("go", "Store.Get", "signature", "func (s *Store) Get(key string) (string, bool)"),
    ("go", "Store.Get", "parent", None),  # parents enclose by line range; receivers do not
    ("go", "Store.Get", "doc", "Get looks a key up."),
    ("go", "Store.evict", "exported", False),
    ("go", "Store", "signature", "type Store struct"),
    ("go", "Store", "header_end_line", 16),
    ("go", "entry", "exported", False),
    ("go", "MaxKeys", "doc", "MaxKeys bounds the number of entries."),
    # Java
    ("java", "Library", "doc", "A collection of books that can be borrowed."),
    ("java", "Library", "signature", "public class Library implements Iterable<Book>"),
    ("java", "Library.add", "signature", "public void add(Book book)"),
    ("java", "Library.add", "start_line", 16),
    ("java", "Library.add", "header_end_line", 18),
    ("java", "Library.log", "exported", False),
    ("java", "Library.Loan.isOverdue", "parent", "Library.Loan"),
    ("java", "Library.Loan.isOverdue", "exported", True),
    ("java", "Library.Status", "exported", False),
    ("java", "Shelf.add", "signature", "void add(Book book)"),
    # Rust
    ("rust", "Circle", "doc", "A circle centred at the origin."),
    ("rust", "Circle", "signature", "pub struct Circle"),
    ("rust", "Circle.new", "parent", None),  # the impl block is a scope, not a symbol
    ("rust", "Circle.new", "exported", True),
    ("rust", "Circle.diameter", "exported", False),
    ("rust", "Circle.area", "exported", True),  # a trait impl follows the trait
    ("rust", "Shape.area", "signature", "fn area(&self) -> f64"),
    ("rust", "util.clamp", "exported", False),  # pub, but inside a private module
    ("rust", "SCALE", "signature", "pub const SCALE: f64 = 1.0"),
    # C
    ("c", "buffer_new", "signature", "Buffer *buffer_new(void)"),
    ("c", "buffer_new", "doc", "Allocates an empty buffer."),
    ("c", "buffer_new", "header_end_line", 23),
    ("c", "grow", "exported", False),
    ("c", "grow", "doc", "Doubles the capacity."),
    ("c", "Buffer", "signature", "typedef struct Buffer"),
    ("c", "Buffer", "doc", "A growable byte buffer."),
    # C++
    ("cpp", "geo.Circle", "doc", "A circle with a centre and radius."),
    ("cpp", "geo.Circle", "signature", "class Circle : public Shape"),
    ("cpp", "geo.Circle.area", "parent", "geo.Circle"),
    ("cpp", "geo.Circle.scale", "exported", False),
    ("cpp", "geo.Circle.print", "signature", "void geo::Circle::print() const"),
    ("cpp", "geo.Circle.print", "parent", None),
    ("cpp", "geo.Point", "parent", None),  # namespaces are scopes, not symbols
    ("cpp", "geo.detail.square", "exported", False),
    ("cpp", "clamp", "signature", "template <typename T> T clamp(T v, T lo, T hi)"),
    # C#
    ("csharp", "Inventory", "doc", "Tracks stock levels per product."),
    ("csharp", "Inventory", "parent", None),
    ("csharp", "Inventory.Add", "signature", "public void Add(string sku, int count)"),
    ("csharp", "Shelf.Empty", "signature", "public bool Empty"),
    ("csharp", "Shelf.Empty", "doc", "Whether nothing is on the shelf."),
    ("csharp", "Shelf.Size", "signature", "public int Size"),
    ("csharp", "Inventory.Add", "start_line", 17),
    ("csharp", "Inventory.Count", "exported", False),
    ("csharp", "IInventory.Add", "exported", True),
    ("csharp", "Unit", "exported", False),
    # Ruby
    ("ruby", "Greetings", "signature", "module Greetings"),
    ("ruby", "Greetings.DEFAULT", "doc", "The language used when none is asked for."),
    ("ruby", "Greetings.Greeter", "signature", "class Greeter < BaseGreeter"),
    ("ruby", "Greetings.Greeter", "doc", "Builds greeting strings."),
    ("ruby", "Greetings.Greeter.greet", "signature", "def greet(lang = DEFAULT)"),
    ("ruby", "Greetings.Greeter.greet", "header_end_line", 17),
    ("ruby", "Greetings.Greeter.phrase", "exported", False),
    ("ruby", "Greetings.Greeter.default", "exported", True),
    # PHP
    (
        "php",
        "UserController.show",
        "signature",
        "public function show(Request $request, int $id): string",
    ),
    ("php", "UserController.show", "doc", "Shows one user."),
    ("php", "UserController.render", "exported", False),
    ("php", "UserController.authorize", "exported", False),
    ("php", "UserController.legacy", "exported", True),
    ("php", "format_name", "doc", "Formats a user name."),
    # Markup
    ("markdown", "Code Compass > Install", "parent", "Code Compass"),
    ("markdown", "Code Compass > Install", "signature", "## Install"),
    ("markdown", "Code Compass > Configuration", "header_end_line", 20),
    ("markdown", "Code Compass > Configuration", "name", "Configuration"),
    ("rst", "User Manual", "header_end_line", 3),
    ("rst", "User Manual > Installation > From source", "parent", "User Manual > Installation"),
]

EXPECTED_REFERENCES: dict[str, set[tuple[str, str, int, str | None]]] = {
    "python": {
        ("import", "hashlib", 5, None),
        ("import", "os.path", 6, None),
        ("import", "typing.Generic", 7, None),
        ("import", "typing.TypeVar", 7, None),
        ("import", ".models.Session", 8, None),
        ("import", ".models.User", 8, None),
        ("call", "TypeVar", 12, None),
        ("call", "hashlib.sha256", 22, "verify_token"),
        ("call", "hashlib.sha256().hexdigest", 22, "verify_token"),
        ("call", "token.encode", 22, "verify_token"),
        ("call", "_compare", 23, "verify_token"),
        ("call", "osp.join", 23, "verify_token"),
        ("inherit", "Generic", 30, "Repository"),
        ("call", "len", 44, "Repository.size"),
        ("call", "print", 51, "Repository.save.log"),
        ("call", "log", 53, "Repository.save"),
        ("inherit", "Repository", 57, "AdminRepository"),
        ("call", "AdminRepository", 63, "AdminRepository.create"),
        ("call", "UserModel", 64, "AdminRepository.create"),
        ("call", "repo.save", 64, "AdminRepository.create"),
    },
    "javascript": {
        ("import", "./money.js:formatPrice", 2, None),
        ("import", "./money.js:round", 2, None),
        ("import", "events:default", 3, None),
        ("import", "path", 4, None),
        ("call", "items.reduce", 13, "total"),
        ("call", "round", 13, "total"),
        ("inherit", "EventEmitter", 18, "Cart"),
        ("call", "super", 22, "Cart.constructor"),
        ("call", "this.items.push", 28, "Cart.add"),
        ("call", "this.#snapshot", 29, "Cart.add"),
        ("call", "this.emit", 29, "Cart.add"),
        ("call", "Cart", 37, "Cart.empty"),
        ("call", "fmt", 43, "describe.line"),
        ("call", "cart.items.map", 45, "describe"),
        ("call", "cart.items.map().join", 45, "describe"),
    },
    "typescript": {
        ("import", "@angular/core:Injectable", 1, None),
        ("import", "./http:Request", 2, None),
        ("import", "./db:*", 3, None),
        ("inherit", "Entity", 16, "User"),
        ("call", "db.query", 27, "fetchUser"),
        ("call", "toUser", 28, "fetchUser"),
        ("call", "Injectable", 35, "UserService"),
        ("inherit", "BaseService", 36, "UserService"),
        ("inherit", "Disposable", 36, "UserService"),
        ("call", "Map", 37, "UserService"),
        ("call", "fetchUser", 41, "UserService.find"),
        ("call", "this.cache.get", 41, "UserService.find"),
        ("call", "this.cache.set", 45, "UserService.remember"),
        ("call", "this.cache.clear", 49, "UserService.dispose"),
    },
    "tsx": {
        ("import", "react:default", 1, None),
        ("import", "react:useState", 1, None),
        ("import", "./Avatar:Avatar", 2, None),
        ("call", "useState", 16, "ProfileCard"),
        ("call", "setMode", 17, "ProfileCard.toggle"),
        ("call", "Avatar", 20, "ProfileCard"),
        ("inherit", "React.Component", 26, "ProfilePage"),
        ("call", "ProfileCard", 28, "ProfilePage.render"),
        ("call", "console.log", 32, "ProfilePage.track"),
        ("call", "name.split", 37, "initials"),
        ("call", "name.split().map", 37, "initials"),
        ("call", "name.split().map().join", 37, "initials"),
    },
}

# References the query-driven languages must find (a subset, not the exact set).
SOME_REFERENCES: dict[str, set[tuple[str, str, int, str | None]]] = {
    "go": {
        ("import", "sync", 6, None),
        ("call", "errors.New", 13, "ErrFull"),  # in the variable's initializer
        ("call", "s.mu.Lock", 35, "Store.Get"),
    },
    "java": {
        ("import", "java.util.List", 4, None),
        ("inherit", "Iterable", 9, "Library"),
        ("call", "books.add", 19, "Library.add"),
        ("call", "System.out.println", 24, "Library.log"),
    },
    "rust": {
        ("import", "std.collections.HashMap", 4, None),
        ("import", "std.collections.HashSet", 4, None),
        ("inherit", "Shape", 32, "Circle"),
        ("call", "Circle.new", 50, "main"),
        ("call", "c.diameter", 52, "main"),
    },
    "c": {("import", "stdlib.h", 1, None), ("call", "grow", 25, "buffer_new")},
    "cpp": {
        ("inherit", "Shape", 19, "geo.Circle"),
        ("call", "detail.square", 38, "geo.distance"),
        ("call", "std.printf", 45, "geo.Circle.print"),
    },
    "csharp": {
        ("import", "System.Collections.Generic", 2, None),
        ("inherit", "IDisposable", 9, "Inventory"),
        ("call", "Console.WriteLine", 22, "Inventory.Add"),
    },
    "ruby": {
        ("import", "json", 1, None),
        ("inherit", "BaseGreeter", 9, "Greetings.Greeter"),
        ("inherit", "Comparable", 10, "Greetings.Greeter"),
        ("call", "phrase", 18, "Greetings.Greeter.greet"),
    },
    "php": {
        ("import", "App.Models.User", 5, None),
        ("inherit", "Controller", 11, "UserController"),
        ("call", "User.find", 20, "UserController.show"),
        ("call", "this.render", 21, "UserController.show"),
    },
}


def _parse_fixture(language: str) -> ParsedFile:
    path = FIXTURES / FIXTURE_FILES[language]
    assert language_for_path(str(path)) == language
    return parse(path.read_text(encoding="utf-8"), language)


def _symbol(parsed: ParsedFile, qualified_name: str) -> Symbol:
    matches = [s for s in parsed.symbols if s.qualified_name == qualified_name]
    assert len(matches) == 1, f"{qualified_name}: {len(matches)} matches"
    return matches[0]


@pytest.mark.parametrize("language", sorted(EXPECTED_SYMBOLS))
def test_fixture_symbols_exact(language: str) -> None:
    parsed = _parse_fixture(language)
    assert parsed.error is None
    assert parsed.language == language
    found = [(s.qualified_name, s.kind, s.start_line, s.end_line) for s in parsed.symbols]
    assert found == EXPECTED_SYMBOLS[language]


@pytest.mark.parametrize("language", sorted(EXPECTED_SYMBOLS))
def test_fixture_symbol_invariants(language: str) -> None:
    symbols = _parse_fixture(language).symbols
    assert symbols == sorted(symbols, key=lambda s: (s.start_line, -s.end_line))
    by_name = {s.qualified_name: s for s in symbols}
    for s in symbols:
        assert 1 <= s.start_line <= s.header_end_line <= s.end_line
        assert s.signature and "\n" not in s.signature and "  " not in s.signature
        separator = " > " if s.kind == "section" else "."
        assert s.qualified_name == s.name or s.qualified_name.endswith(separator + s.name)
        if s.parent is not None:
            # The parent is a symbol of the same file whose range holds this one.
            parent = by_name[s.parent]
            assert parent.start_line <= s.start_line and s.end_line <= parent.end_line
            assert s.qualified_name.startswith(s.parent + separator)


@pytest.mark.parametrize(
    ("language", "qualified_name", "field", "expected"),
    SPOT_CHECKS,
    ids=[f"{c[0]}:{c[1]}:{c[2]}" for c in SPOT_CHECKS],
)
def test_fixture_spot_checks(
    language: str, qualified_name: str, field: str, expected: object
) -> None:
    symbol = _symbol(_parse_fixture(language), qualified_name)
    assert getattr(symbol, field) == expected


@pytest.mark.parametrize("language", sorted(EXPECTED_REFERENCES))
def test_references_exact(language: str) -> None:
    parsed = _parse_fixture(language)
    found = [(r.kind, r.name, r.line, r.scope) for r in parsed.references]
    assert len(found) == len(set(found))
    assert set(found) == EXPECTED_REFERENCES[language]


@pytest.mark.parametrize("language", sorted(SOME_REFERENCES))
def test_references_query_languages(language: str) -> None:
    parsed = _parse_fixture(language)
    found = {(r.kind, r.name, r.line, r.scope) for r in parsed.references}
    assert SOME_REFERENCES[language] <= found


def test_python_import_forms() -> None:
    source = (
        "import a.b, c as d\n"
        "from x import y as z, w\n"
        "from . import sibling\n"
        "from ..pkg.mod import (\n"
        "    thing,\n"
        ")\n"
        "from m import *\n"
    )
    names = [(r.name, r.line) for r in parse(source, "python").references if r.kind == "import"]
    assert names == [
        ("a.b", 1),
        ("c", 1),
        ("x.y", 2),
        ("x.w", 2),
        (".sibling", 3),
        ("..pkg.mod.thing", 5),
        ("m.*", 7),
    ]


def test_javascript_import_forms() -> None:
    source = (
        "import './side.css';\n"
        "import * as ns from 'lib';\n"
        "export { a, b as c } from './re';\n"
        "export * from './all';\n"
        "const dyn = import('./lazy');\n"
    )
    names = [(r.name, r.line) for r in parse(source, "javascript").references]
    assert names == [
        ("./side.css", 1),
        ("lib:*", 2),
        ("./re:a", 3),
        ("./re:b", 3),
        ("./all:*", 4),
        ("./lazy", 5),
    ]


def test_javascript_commonjs_and_object_symbols() -> None:
    source = (
        "var res = Object.create(http.ServerResponse.prototype);\n"  # 1
        "module.exports = res;\n"
        "/** Send a body. */\n"
        "res.send = function send(body) {\n"
        "  this.json(body);\n"  # 5
        "};\n"
        "exports.compileTrust = function (val) {};\n"
        "module.exports.other = () => 1;\n"
        "function Foo() {}\n"
        "Foo.prototype.bar = function () {};\n"  # 10
        "Foo.prototype = { baz() {} };\n"
        "const api = { get() {}, post: () => {}, data: 1 };\n"
        "const plain = { a: 1 };\n"
        "function setup(app) {\n"
        "  app.handle = function handle() {};\n"  # 15
        "}\n"
        "this.x = function () {};\n"
        "class A { handler = () => {}; #run = function () {}; repo = new Repo(); }\n"
    )
    found = [
        (s.qualified_name, s.name, s.kind, s.start_line, s.parent, s.exported)
        for s in parse(source, "javascript").symbols
    ]
    assert found == [
        ("res", "res", "class", 1, None, True),
        ("res.send", "send", "method", 3, None, True),
        ("compileTrust", "compileTrust", "function", 7, None, True),
        ("other", "other", "function", 8, None, True),
        ("Foo", "Foo", "function", 9, None, False),
        ("Foo.bar", "bar", "method", 10, None, False),
        ("Foo.baz", "baz", "method", 11, None, False),
        ("api", "api", "class", 12, None, False),
        ("api.get", "get", "method", 12, "api", False),
        ("api.post", "post", "method", 12, "api", False),
        ("setup", "setup", "function", 14, None, False),
        ("setup.app.handle", "handle", "function", 15, "setup", False),
        ("A", "A", "class", 18, None, False),
        ("A.handler", "handler", "method", 18, "A", False),
        ("A.#run", "#run", "method", 18, "A", False),
    ]
    send = next(s for s in parse(source, "javascript").symbols if s.name == "send")
    assert (send.signature, send.doc) == ("res.send = function send(body)", "Send a body.")


def test_javascript_accessors_object_define_properties_defines() -> None:
    """fastify's audit: `Request.hostname`, `Request.port` and `Reply.sent` are getters
    `Object.defineProperties(Request.prototype, {…})` defines, and were no symbols: a
    query naming `request.hostname` found nothing by name. A descriptor of a plain value,
    and another call's object, define none."""
    source = (
        "function Request(raw) { this.raw = raw }\n"
        "Object.defineProperties(Request.prototype, {\n"
        "  hostname: {\n    get () { return this.raw.host }\n  },\n"  # 3
        "  maxAge: { value: 5, writable: true },\n"
        "  log: { value: function log (msg) { return msg } }\n"  # 7
        "})\n"
        "Object.defineProperties(module.exports, { version: { get () { return 1 } } })\n"
        "register({ a: { get () { return 1 } } })\n"  # 10
    )
    found = [
        (s.qualified_name, s.kind, s.start_line, s.end_line)
        for s in parse(source, "javascript").symbols
    ]
    assert found == [
        ("Request", "function", 1, 1),
        ("Request.hostname", "method", 3, 5),
        ("Request.log", "method", 7, 7),
        ("version", "function", 9, 9),
    ]


def test_typescript_a_declaration_the_grammar_gives_up_on_keeps_the_rest() -> None:
    """immer's audit: call signatures of generic overloads in an interface made
    tree-sitter-typescript read the rest of the file as one error (`IProduce`,
    `Producer` and a function after them were no symbols). The body of such a
    declaration is blanked and the file read again: it keeps its name and the rest
    parses; a declaration with a local error keeps its members."""
    signatures = [
        "\t<A>(\n\t\tfirst: Wrap<A>,\n\t\tsecond?: Wrap<A>\n\t): A\n",
        "\t/** two */\n\t<B extends Fn>(only: B): Made<\n\t\tB,\n\t\tfalse\n\t>\n",
        "\t/** three */\n\t<C>(\n\t\tcb: (\n\t\t\tc: Box<C>,\n\t\t\tinit: C\n\t\t) => Ret<C>\n"
        "\t): (c?: C) => C\n",
        "\t<D, E extends any[]>(\n\t\tcb: (\n\t\t\td: Box<D>,\n\t\t\t...rest: E\n"
        "\t\t) => Ret<D>,\n\t\tinit: D\n\t): (d?: D, ...rest: E) => D\n",
    ]
    source = (
        "export interface Maker {\n" + "\n".join(signatures) + "}\n\n"
        "export type After<T> = (x: Box<T>) => Ret<Box<T>>\n\nexport function lastOne() {}\n"
    )
    found = [
        (s.qualified_name, s.start_line, s.end_line) for s in parse(source, "typescript").symbols
    ]
    assert found == [("Maker", 1, 28), ("After", 30, 30), ("lastOne", 32, 32)]
    local = (
        "export class A {\n  one() { return 1 }\n  two() { const x = ; return x }\n"
        "  three() { return 3 }\n}\nexport function after() {}\n"
    )
    found = [(s.qualified_name, s.start_line) for s in parse(local, "typescript").symbols]
    assert found == [("A", 1), ("A.one", 2), ("A.two", 3), ("A.three", 4), ("after", 6)]


def test_typescript_interface_methods_are_symbols() -> None:
    """yup's audit: `StringSchema.nonNullable`, declared in the interface merged with
    its class, had no symbol (69 such methods); a property is no method."""
    source = (
        "export default interface StringSchema<T = string> extends Schema<T> {\n"
        "  nonNullable(): StringSchema<NonNullable<T>>;\n"
        "  length: number;\n"
        "}\n"
        "export default class StringSchema<T = string> extends Schema<T> {\n"
        "  trim(message?: string): this { return this; }\n"
        "}\n"
    )
    found = [(s.qualified_name, s.kind, s.start_line) for s in parse(source, "typescript").symbols]
    assert found == [
        ("StringSchema", "interface", 1),
        ("StringSchema.nonNullable", "method", 2),
        ("StringSchema", "class", 5),
        ("StringSchema.trim", "method", 6),
    ]


def test_typescript_function_fields_are_methods() -> None:
    source = (
        "export class A {\n"
        "  private repo: Repo;\n"
        "  handler = (x: number): void => {};\n"
        "  private hidden = () => {};\n"
        "}\n"
    )
    found = [
        (s.qualified_name, s.kind, s.exported, s.signature)
        for s in parse(source, "typescript").symbols
    ]
    assert found == [
        ("A", "class", True, "export class A"),
        ("A.handler", "method", True, "handler = (x: number): void =>"),
        ("A.hidden", "method", False, "private hidden = () =>"),
    ]


def test_a_generic_arrow_function_read_as_a_type_assertion_is_a_function() -> None:
    """hono's `useSyncExternalStore = <T>(…): T => {…}` was no symbol: in a file the
    `.ts` grammar cannot read whole it took the arrow function for a type assertion
    of it (an unfinished statement does the same here). `.tsx` has no such reading."""
    source = (
        "export const useStore = <T>(\n): T => {\n  if (!ready) {\n  }\n  const snapshot =\n}\n"
    )
    found = [(s.name, s.kind, s.start_line) for s in parse(source, "typescript").symbols]
    assert found == [("useStore", "function", 1)]
    assert [s.name for s in parse("const cast = <Options>defaults\n", "typescript").symbols] == []


def test_functions_made_by_a_call_are_functions() -> None:
    """excalidraw: React components wrapped in `memo`/`forwardRef` and handlers wrapped in
    `throttle` or `withBatchedUpdates` (18 of `App`'s, `App.onBlur`…) were no symbols, or
    constants whose code no chunk named. A call given a function makes a function; as a
    class field, a method. A call given no function stays what it was."""
    source = (
        "export const Menu = React.memo((props: Props) => {\n"
        "  const inner = () => 1;\n"
        # inside a function, a call's product is a value (mealie: `usePasswordStrength`'s
        # calls were all its `computed`s', and `deps usePasswordStrength` found none)
        "  const score = computed(() => inner());\n"
        "});\n"
        "export const Input = React.memo(forwardRef((props, ref) => null));\n"
        "const save = throttle(function (x: number) {\n  return x;\n}, 100);\n"
        "export const store = createStore(reducer);\n"
        # a list's method or a reactive value given a function makes a value
        "export const names = users.map((u) => u.name);\n"
        "const total = computed(() => 1);\n"
        "export class App {\n"
        "  private onBlur = withBatchedUpdates(() => {\n    this.x = 1;\n  });\n"
        "  public onResize = throttle(() => {}, 50);\n"
        "  private timer = setInterval(tick, 10);\n"
        "}\n"
    )
    found = [
        (s.qualified_name, s.kind, s.start_line, s.end_line) for s in parse(source, "tsx").symbols
    ]
    assert found == [
        ("Menu", "function", 1, 4),
        ("Menu.inner", "function", 2, 2),
        ("Input", "function", 5, 5),
        ("save", "function", 6, 8),
        ("store", "constant", 9, 9),
        ("names", "constant", 10, 10),
        ("App", "class", 12, 18),
        ("App.onBlur", "method", 13, 15),
        ("App.onResize", "method", 16, 16),
    ]


def test_a_named_function_handed_to_a_top_level_call_is_a_function() -> None:
    """Next.js's `export default withAuth(async function middleware(req) {…})` was no
    symbol: `symbol middleware` found nothing and the file stood for its calls."""
    source = (
        'import { withAuth } from "next-auth/middleware"\n\n'
        "export default withAuth(\n  async function middleware(req) {\n    return req\n  },\n"
        "  { pages: {} }\n)\n"
        'app.get("/x", function handler(req, res) {\n  return res\n})\n'
        'describe("x", function () {\n  it("y", function nested() {})\n})\n'
    )
    found = [
        (s.name, s.kind, s.start_line, s.end_line) for s in parse(source, "typescript").symbols
    ]
    assert found == [("middleware", "function", 4, 6), ("handler", "function", 9, 11)]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "export default isHttpAdapterSupported && function httpAdapter(config) {\n"
            "  function onFinished() {\n    return 1\n  }\n  return onFinished\n}\n",
            [("httpAdapter", "function", 1, 6), ("httpAdapter.onFinished", "function", 2, 4)],
        ),
        (
            "export default isFetchSupported && (async (config) => {\n  return config\n})\n",
            [("default", "function", 1, 3)],
        ),
        (
            "export default isXHRAdapterSupported && function (config) {\n  return config\n}\n",
            [("default", "function", 1, 3)],
        ),
        ("export default function (req) {\n  return req\n}\n", [("default", "function", 1, 3)]),
        ("export default (req) => {\n  return req\n}\n", [("default", "function", 1, 3)]),
        # An exported value stays a value.
        ("export default isSupported && makeAdapter(config)\n", []),
    ],
)
def test_a_default_export_behind_a_feature_test_or_anonymous_is_a_function(
    source: str, expected: list[tuple[str, str, int, int]]
) -> None:
    """axios's adapters, `export default isHttpAdapterSupported && function httpAdapter(…)`
    and its anonymous fetch and XHR adapters, were no symbols (an outside audit): the
    file's main function could not be found or returned. An anonymous one is `default`,
    the name JavaScript gives it."""
    for language in ("javascript", "typescript"):
        symbols = parse(source, language).symbols
        found = [(s.qualified_name, s.kind, s.start_line, s.end_line) for s in symbols]
        assert found == expected, language


def test_call_names_reduce_complex_receivers() -> None:
    source = 'def f():\n    "-".join(x)\n    (a or b).c()\n    items[0].save()\n'
    names = [r.name for r in parse(source, "python").references]
    assert names == ["?.join", "?.c", "items[].save"]


def test_python_decorators_and_comments_extend_start() -> None:
    source = (
        "x = 1  # trailing comment, not attached\n"
        "# attached comment\n"
        "@decorator(\n"
        "    option=True,\n"
        ")\n"
        "def handler(event):  # trailing\n"
        "    return event\n"
        "\n"
        "# separated by a blank line\n"
        "\n"
        "def other():\n"
        "    pass\n"
    )
    handler, other = parse(source, "python").symbols
    assert (handler.start_line, handler.header_end_line, handler.end_line) == (2, 6, 7)
    assert handler.signature == "def handler(event)"
    assert handler.doc == "attached comment"
    assert (other.start_line, other.doc) == (11, "")


def test_a_signature_leaves_its_comments_out() -> None:
    """On one line, a line comment inside a signature would swallow what follows it."""
    python = (
        "class Client:\n"
        "    def put(  # type: ignore[override]\n"
        "        self,\n"
        "        url: str,  # where to\n"
        '        sep: str = " # kept",\n'
        "    ) -> None:\n"
        "        pass\n"
        "CODES = [7,  # Bell\n"
        "         8]  # Backspace\n"
    )
    assert [s.signature for s in parse(python, "python").symbols] == [
        "class Client",
        'def put(self, url: str, sep: str = " # kept") -> None',
        "CODES = [7, 8]",
    ]
    javascript = (
        "function f(a /* first */, b // second\n) {\n  return a\n}\nfunction g(a/*x*/b) {}\n"
    )
    assert [s.signature for s in parse(javascript, "javascript").symbols] == [
        "function f(a, b)",
        "function g(a b)",
    ]


def test_rust_impl_qualifies_and_attributes_attach() -> None:
    source = "/// Docs.\n#[inline]\nfn free() {}\nimpl<T> Wrapper<T> {\n    fn get(&self) {}\n}\n"
    symbols = parse(source, "rust").symbols
    assert [(s.qualified_name, s.kind, s.start_line) for s in symbols] == [
        ("free", "function", 1),
        ("Wrapper.get", "method", 5),
    ]
    assert symbols[0].doc == "Docs."


def test_rust_impl_for_a_reference_names_the_type_referred_to() -> None:
    """serde_json's audit: `impl … for &'a mut Deserializer<R>` named its 20 methods
    `?.deserialize_any`, so neither a name nor the eval could match them."""
    source = (
        "impl<'de, 'a, R: Read<'de>> de::Deserializer<'de> for &'a mut Deserializer<R> {\n"
        "    fn deserialize_any(self) {}\n}\n"
        "impl<T> Send for *const Slot<T> {\n    fn f(&self) {}\n}\n"
        "impl<T> Serialize for [T] {\n    fn serialize(&self) {}\n}\n"
    )
    assert [(s.qualified_name, s.kind) for s in parse(source, "rust").symbols] == [
        ("Deserializer.deserialize_any", "method"),
        ("Slot.f", "method"),
        ("serialize", "function"),  # a slice has no name to qualify with
    ]


def test_ruby_private_def_inline() -> None:
    source = "class A\n  private def hidden\n  end\n\n  def shown\n  end\nend\n"
    exported = {s.qualified_name: s.exported for s in parse(source, "ruby").symbols}
    assert exported == {"A": True, "A.hidden": False, "A.shown": True}


def test_a_function_like_macro_shows_its_head() -> None:
    """The overview of spdlog listed `#define SPDLOG_THROW(ex) \\ do { \\ printf(…`."""
    source = (
        "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n"
        "#define SWAP(x, y) \\\n  do { int t = x; x = y; y = t; } while (0)\n"
        "#define LIMIT 16\n"
    )
    assert [(s.name, s.kind, s.signature, s.end_line) for s in parse(source, "c").symbols] == [
        ("MAX", "function", "#define MAX(a, b)", 1),
        ("SWAP", "function", "#define SWAP(x, y)", 3),
        ("LIMIT", "constant", "#define LIMIT 16", 4),
    ]


def test_cpp_member_defined_outside_its_class_file_is_a_method() -> None:
    """leveldb's version_set.cc defines `VersionSet::PickCompaction` for the class in
    version_set.h: 216 such functions of leveldb were `function`, missed by `--kind
    method`, and `class VersionSet::Builder` was a class named `VersionSet::Builder`. A
    qualifier the file opens as a namespace, or `std`, still makes a function."""
    source = (
        "namespace leveldb {\n"
        "namespace config { int Levels(); }\n"
        "Compaction* VersionSet::PickCompaction() { return nullptr; }\n"
        "VersionSet::~VersionSet() {}\n"
        "class VersionSet::Builder {\n  void Apply(int edit) {}\n};\n"
        "int config::Levels() { return 7; }\n"
        "static int Helper() { return 1; }\n"
        "}  // namespace leveldb\n"
        "template <> void std::swap(leveldb::Slice& a, leveldb::Slice& b) {}\n"
    )
    kinds = [(s.qualified_name, s.kind, s.parent) for s in parse(source, "cpp").symbols]
    assert kinds == [
        ("leveldb.VersionSet.PickCompaction", "method", None),
        ("leveldb.VersionSet.~VersionSet", "method", None),
        ("leveldb.VersionSet.Builder", "class", None),
        ("leveldb.VersionSet.Builder.Apply", "method", "leveldb.VersionSet.Builder"),
        ("leveldb.config.Levels", "function", None),
        ("leveldb.Helper", "function", None),
        ("std.swap", "function", None),
    ]


def test_a_wrapped_type_parameter_list_reads_as_written_on_one_line() -> None:
    """zod's overview showed `static create< Discriminator extends …`."""
    source = (
        "class Union {\n"
        "  static create<\n"
        "    Discriminator extends string,\n"
        "    Options extends readonly Option[],\n"
        "  >(discriminator: Discriminator, options: Options): Union {\n"
        "    return new Union();\n"
        "  }\n"
        "}\n"
    )
    (create,) = [s for s in parse(source, "typescript").symbols if s.name == "create"]
    assert create.signature == (
        "static create<Discriminator extends string, Options extends readonly Option[]>"
        "(discriminator: Discriminator, options: Options): Union"
    )
    template = "template <\n  typename T,\n  typename U\n>\nT first(T a, U b) { return a; }\n"
    (first,) = parse(template, "cpp").symbols
    assert first.signature == "template <typename T, typename U> T first(T a, U b)"
    assert collapse("bool operator< (int a, int b = c > d)") == (
        "bool operator< (int a, int b = c > d)"
    )


def test_cpp_access_specifiers() -> None:
    source = (
        "struct S {\n  void a() {}\nprivate:\n  void b() {}\n};\nclass C {\n  void c() {}\n};\n"
    )
    exported = {s.qualified_name: s.exported for s in parse(source, "cpp").symbols}
    assert exported == {"S": True, "S.a": True, "S.b": False, "C": True, "C.c": False}


def test_markdown_edge_cases() -> None:
    source = (
        "---\n"
        "title: Front matter\n"
        "---\n"
        "# Title #\n"
        "~~~\n"
        "# not a heading\n"
        "~~~\n"
        "    # indented code, not a heading\n"
        "- list item\n"
        "---\n"
        "Setext\n"
        "===\n"
    )
    symbols = parse(source, "markdown").symbols
    assert [(s.qualified_name, s.start_line, s.end_line) for s in symbols] == [
        ("Title", 4, 10),
        ("Setext", 11, 12),
    ]


def test_an_mdx_page_is_markdown_with_its_sections() -> None:
    """Docusaurus and Next.js sites write their docs as MDX (Markdown with JSX): tRPC's 66
    pages were plain text, with no section to find or cite."""
    text = (
        "---\ntitle: Routers\n---\n"
        "import Tabs from '@theme/Tabs';\n\n"
        "# Define routers\n\n"
        '<Tabs>\n<TabItem value="server">\n\n'
        "```ts\nexport const appRouter = router({});\n```\n\n"
        "</TabItem>\n</Tabs>\n\n"
        "## Merging routers\n\nUse `mergeRouters`.\n"
    )
    source = parse_file("www/docs/server/routers.mdx", text)
    assert source.parsed.language == "markdown"
    assert [(s.qualified_name, s.start_line, s.end_line) for s in source.parsed.symbols] == [
        ("Define routers", 6, 20),
        ("Define routers > Merging routers", 18, 20),
    ]


def test_rst_overline_and_underline_styles_nest() -> None:
    source = (
        "####\nPart\n####\n\nChapter\n*******\n\ntext\n\n"
        "##########\nOther part\n##########\n\nChapter\n*******\n"
    )
    symbols = parse(source, "rst").symbols
    assert [(s.qualified_name, s.start_line, s.end_line) for s in symbols] == [
        ("Part", 1, 8),
        ("Part > Chapter", 5, 8),
        ("Other part", 10, 15),
        ("Other part > Chapter", 14, 15),
    ]


def test_malformed_python_still_yields_symbols() -> None:
    source = (
        "def good():\n    return 1\n\n"
        "def broken(:\n    pass\n\n"
        "class Fine:\n    def m(self):\n        pass\n"
    )
    parsed = parse(source, "python")
    names = [s.qualified_name for s in parsed.symbols]
    assert "good" in names and "Fine.m" in names
    assert parsed.error is None


def test_malformed_javascript_still_yields_symbols() -> None:
    parsed = parse("function ok() { return 1 }\nfunction broken( {\n", "javascript")
    assert parsed.error is None or parsed.symbols == []
    assert "ok" in [s.qualified_name for s in parsed.symbols]


WEIRD_INPUTS = {
    "binary": "".join(chr(code) for code in range(256)) * 20,
    "nul_bytes": "def f():\n\x00\x00\x00 return 1\n",
    "lone_surrogates": "def f():\n    return '\udcff\ud800'\n",
    "unbalanced": "}}}{{{((([[[ class def fn func <?php ?> ``` ===",
    "crlf": "class A:\r\n    def b(self):\r\n        pass\r\n",
    "only_newlines": "\n" * 1000,
    "long_line": "x = [" + "1, " * 20000 + "]",
}


@pytest.mark.parametrize("language", sorted(LANGUAGES))
@pytest.mark.parametrize("case", sorted(WEIRD_INPUTS))
def test_weird_input_never_raises(language: str, case: str) -> None:
    parsed = parse(WEIRD_INPUTS[case], language)
    assert isinstance(parsed, ParsedFile)
    assert parsed.language == language
    for s in parsed.symbols:
        assert 1 <= s.start_line <= s.header_end_line <= s.end_line


@pytest.mark.parametrize("language", sorted(TREE_SITTER_LANGUAGES))
def test_deep_nesting_does_not_crash(language: str) -> None:
    depth = 3000
    sources = [
        "".join("    " * i + f"def f{i}():\n" for i in range(200)) + "    " * 200 + "pass\n",
        "function a(){" * depth + "}" * depth,
        "x = " + "(" * depth + ")" * depth,
        "[" * depth + "]" * depth,
    ]
    for source in sources:
        started = time.perf_counter()
        parsed = parse(source, language)
        assert isinstance(parsed, ParsedFile)
        assert time.perf_counter() - started < 10


def test_deeply_nested_python_functions_are_qualified() -> None:
    source = "".join("    " * i + f"def f{i}():\n" for i in range(30)) + "    " * 30 + "pass\n"
    symbols = parse(source, "python").symbols
    assert len(symbols) == 30
    assert symbols[-1].qualified_name == ".".join(f"f{i}" for i in range(30))


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_empty_file(language: str) -> None:
    for source in ("", "\n", "   \n\n"):
        parsed = parse(source, language)
        assert parsed.symbols == [] and parsed.references == [] and parsed.error is None


def test_text_and_unknown_languages() -> None:
    assert parse("def f(): pass\n# Heading\n", "text") == ParsedFile("text")
    assert parse("def f(): pass\n", "cobol") == ParsedFile("cobol")


def test_parse_timeout_falls_back_and_parser_recovers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parse_module, "_PARSE_SECONDS", 0.0)
    monkeypatch.setattr(parse_module, "_PARSE_BYTES_PER_SECOND", 10**12)
    junk = "x = [" + "1, " * 100000 + "]\n"
    started = time.perf_counter()
    parsed = parse(junk, "c")
    assert parsed.error is not None and "longer" in parsed.error
    assert parsed.symbols == []
    assert time.perf_counter() - started < 5
    monkeypatch.undo()
    # A cancelled parse must not leak into the next one.
    assert [s.name for s in parse("int main(void) { return 0; }\n", "c").symbols] == ["main"]


def test_parse_is_thread_safe() -> None:
    languages = sorted(EXPECTED_SYMBOLS) * 4
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(_parse_fixture, languages))
    for language, parsed in zip(languages, results, strict=True):
        found = [(s.qualified_name, s.kind, s.start_line, s.end_line) for s in parsed.symbols]
        assert found == EXPECTED_SYMBOLS[language]


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("src/app.py", "python"),
        ("stubs/mod.pyi", "python"),
        ("web/App.jsx", "javascript"),
        ("web/esm.mjs", "javascript"),
        ("web/cjs.cjs", "javascript"),
        ("web/types.d.ts", "typescript"),
        ("web/View.tsx", "tsx"),
        ("cmd/main.go", "go"),
        ("Main.java", "java"),
        ("lib.rs", "rust"),
        ("include/util.h", "c"),
        ("util.c", "c"),
        ("util.hpp", "cpp"),
        ("util.cc", "cpp"),
        ("util.cxx", "cpp"),
        ("Program.cs", "csharp"),
        ("app.rb", "ruby"),
        ("Rakefile", "ruby"),
        ("Gemfile", "ruby"),
        ("AFNetworking.podspec", "ruby"),
        ("fastlane/Fastfile", "ruby"),
        ("Dangerfile", "ruby"),
        # a Rails view in the language it renders; a bare `.erb` says nothing
        ("app/views/accounts/_form.html.erb", "html"),
        ("app/views/accounts/update.js.erb", "javascript"),
        ("mailer.text.erb", "text"),
        ("template.erb", "text"),
        ("app/views/accounts/show.json.jbuilder", "ruby"),
        ("Pester.psd1", "powershell"),
        ("index.php", "php"),
        ("README.md", "markdown"),
        ("docs/INDEX.MD", "markdown"),
        ("docs/guide.rst", "rst"),
        ("notes.txt", "text"),
        ("Makefile", "make"),
        (".bashrc", "bash"),
        (".gitignore", "text"),
        ("C:\\repo\\src\\main.py", "python"),
    ],
)
def test_language_for_path(path: str, language: str) -> None:
    assert language_for_path(path) == language
    assert language in LANGUAGES


def test_tree_sitter_languages_match_grammar_table() -> None:
    assert TREE_SITTER_LANGUAGES <= LANGUAGES
    assert {"markdown", "rst", "text"}.isdisjoint(TREE_SITTER_LANGUAGES)
    assert all(treesitter.grammar_available(language) for language in TREE_SITTER_LANGUAGES)


def test_markdown_titles_are_words_not_markup() -> None:
    text = (
        '# <img alt="chi" src="logo.svg" width="220" />\n\n'
        "## Install <sup>beta</sup>\n\n"
        "## ![badge](b.svg) [Docs](https://example.com) and more\n\n"
        '## <a href="x"><img src="l.png"></a>\n\n'
        "## a < b\n"
    )
    assert [s.qualified_name for s in parse_markdown(text)] == [
        "chi",
        "chi > Install beta",
        "chi > Docs and more",
        "chi > (untitled)",
        "chi > a < b",
    ]


def test_java_enum_constant_bodies_and_field_anonymous_classes_name_their_methods() -> None:
    """jsoup: the 70 `read` methods of `TokeniserState`'s constants were all
    `TokeniserState.read` (one slot in the symbol view, told apart by line only), and an
    anonymous class's `run` in a field's initializer was the outer class's `run`."""
    source = (
        "enum TokeniserState {\n"
        "    Data {\n"
        "        void read(Tokeniser t, CharacterReader r) {\n"
        "            r.advance();\n"
        "        }\n"
        "    },\n"
        "    BogusComment {\n"
        "        void read(Tokeniser t, CharacterReader r) {}\n"
        "    },\n"
        "    Plain;\n"
        "    abstract void read(Tokeniser t, CharacterReader r);\n"
        "}\n"
        "class Registry {\n"
        "    final Runnable ticker = new Runnable() {\n"
        "        public void run() {}\n"
        "    };\n"
        "    void run() {}\n"
        "}\n"
    )
    found = [(s.qualified_name, s.kind, s.start_line) for s in parse(source, "java").symbols]
    assert found == [
        ("TokeniserState", "enum", 1),
        ("TokeniserState.Data", "class", 2),
        ("TokeniserState.Data.read", "method", 3),
        ("TokeniserState.BogusComment", "class", 7),
        ("TokeniserState.BogusComment.read", "method", 8),
        ("TokeniserState.read", "method", 11),
        ("Registry", "class", 13),
        ("Registry.ticker.run", "method", 15),
        ("Registry.run", "method", 17),
    ]


def test_go_package_level_variables_are_symbols() -> None:
    """caddy: 161 package-level `var`s (`directiveOrder`, `errNoUpstream`, a pool with a
    `New` func) were no symbols: `symbol directiveOrder` found nothing. A variable set to
    a function literal is a function; a function's own locals are not symbols."""
    source = (
        "package mini\n\n"
        "var handler = func(w http.ResponseWriter, r *http.Request) {\n"
        "\tw.WriteHeader(200)\n"
        "}\n\n"
        "var (\n"
        "\tnormalize = func(s string) string { return s }\n"
        "\tDefaultTimeout = 30 * time.Second\n"
        ")\n\n"
        'var errNoUpstream = errors.New("no upstream")\n\n'
        "func run() {\n\tvar local = 1\n\t_ = local\n}\n"
    )
    found = [
        (s.qualified_name, s.kind, s.start_line, s.end_line) for s in parse(source, "go").symbols
    ]
    assert found == [
        ("handler", "function", 3, 5),
        ("normalize", "function", 8, 8),
        ("DefaultTimeout", "variable", 9, 9),
        ("errNoUpstream", "variable", 12, 12),
        ("run", "function", 14, 17),
    ]


def test_a_rails_view_of_erb_tags_is_no_parse_error() -> None:
    """28 of lobsters' 121 views (`_subnav.html.erb`: nothing but ERB tags) were
    "syntax errors throughout the file" in `status`: the HTML grammar reads `<% … %>` as
    broken tags. They are read as blanks; the HTML around them keeps its symbols."""
    subnav = (
        "<%# locals: () -%>\n<% content_for :subnav do %>\n"
        "  <%= link_to 'About', about_path %>\n  <%= link_to 'Chat', chat_path %>\n<% end %>\n"
    )
    parsed = parse_file("app/views/about/_subnav.html.erb", subnav).parsed
    assert (parsed.language, parsed.error) == ("html", None)
    form = (
        '<% if @story.errors.any? %>\n<div id="errors">\n  <%= @story.errors.count %>\n</div>\n'
        '<% end %>\n<form id="story_form" action="<%= stories_path %>">\n</form>\n'
    )
    parsed = parse_file("app/views/stories/_form.html.erb", form).parsed
    assert parsed.error is None
    assert [(s.name, s.start_line) for s in parsed.symbols] == [("errors", 2), ("story_form", 6)]
