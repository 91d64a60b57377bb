"""The languages added in issue 17: symbols per fixture, detection, lazy grammars, and
every file of a polyglot repository accounted for (symbols, or chunks without them)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codecompass.cli import _languages
from codecompass.engine import Engine
from codecompass.indexing import treesitter
from codecompass.indexing.chunk import ChunkLimits, chunk_file
from codecompass.indexing.extract import extract_facts
from codecompass.indexing.languages import (
    CORE_LANGUAGES,
    EXTRA_LANGUAGES,
    LANGUAGE_ALIASES,
    LANGUAGES,
    PLAIN_LANGUAGES,
    SYMBOL_LANGUAGES,
    TREE_SITTER_LANGUAGES,
    is_auxiliary_path,
    is_example_path,
    is_test_path,
    is_test_tooling,
    language_for_file,
    language_for_path,
    nested_test_package,
)
from codecompass.indexing.parse import parse, parse_file
from codecompass.indexing.rules_more import MAX_DATA_KEYS
from codecompass.models import ParsedFile, Symbol
from tests.conftest import TinyEmbedder, make_git_repo
from tests.peek import peek

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "languages"

FIXTURE_FILES = {
    "bash": "bash/deploy.sh",
    "cmake": "cmake/CMakeLists.txt",
    "css": "css/site.css",
    "cython": "cython/_sgd_fast.pyx",
    "dart": "dart/counter.dart",
    "dockerfile": "dockerfile/Dockerfile",
    "elixir": "elixir/accounts.ex",
    "fortran": "fortran/stats.f90",
    "graphql": "graphql/schema.graphql",
    "prisma": "prisma/schema.prisma",
    "groovy": "groovy/Build.groovy",
    "haskell": "haskell/Queue.hs",
    "hcl": "hcl/main.tf",
    "html": "html/index.html",
    "json": "json/package.json",
    "julia": "julia/geometry.jl",
    "kotlin": "kotlin/Repository.kt",
    "lua": "lua/cache.lua",
    "make": "make/Makefile",
    "nix": "nix/default.nix",
    "objc": "objc/Counter.m",
    "ocaml": "ocaml/stack.ml",
    "perl": "perl/Greeter.pm",
    "powershell": "powershell/Deploy.ps1",
    "protobuf": "protobuf/users.proto",
    "r": "r/summaries.R",
    "scala": "scala/Inventory.scala",
    "scss": "scss/theme.scss",
    "sql": "sql/schema.sql",
    "svelte": "svelte/Counter.svelte",
    "swift": "swift/Shapes.swift",
    "toml": "toml/Cargo.toml",
    "vue": "vue/UserCard.vue",
    "yaml": "yaml/ci.yml",
    "zig": "zig/list.zig",
}

# (kind, qualified name, first line, last line), in file order.
EXPECTED_SYMBOLS: dict[str, list[tuple[str, str, int, int]]] = {
    "bash": [
        ("function", "log", 7, 10),
        ("function", "build", 12, 15),
        ("function", "deploy_to", 17, 21),
        ("function", "main", 23, 26),
    ],
    "cmake": [
        ("function", "enable_warnings", 4, 7),
        ("function", "use_cxx20", 9, 11),
        ("module", "geometry", 15, 18),
        ("module", "geometry_demo", 21, 21),
        ("module", "docs", 24, 24),
    ],
    "css": [
        ("section", ":root", 1, 5),
        ("section", "body", 7, 10),
        ("section", ".card, .panel", 12, 16),
        ("section", ".card", 19, 21),
        ("section", "@keyframes spin", 24, 27),
    ],
    "dart": [
        ("constant", "maxCount", 4, 4),
        ("class", "Counter", 6, 21),
        ("method", "Counter.Counter", 11, 11),
        ("method", "Counter.value", 13, 13),
        ("method", "Counter.increment", 15, 18),
        ("method", "Counter.changes", 20, 20),
        ("trait", "Loggable", 23, 25),
        ("method", "Loggable.log", 24, 24),
        ("enum", "Direction", 27, 27),
        ("class", "CounterReset", 29, 33),
        ("method", "CounterReset.reset", 30, 32),
        ("type", "Listener", 35, 35),
        ("function", "twice", 37, 39),
        ("class", "Point", 41, 51),
        # constructors: the unnamed one is named after the class, a named one by its name
        ("method", "Point.Point", 44, 44),
        ("method", "Point.parse", 45, 45),
        # operators are methods named as C++ names them
        ("method", "Point.operator==", 47, 48),
        ("method", "Point.operator+", 50, 50),
    ],
    "dockerfile": [
        ("module", "build", 4, 8),
        ("module", "test", 10, 12),
        ("module", "gcr.io/distroless/python3", 14, 16),
    ],
    "elixir": [
        ("module", "MyApp.Accounts", 1, 28),
        ("function", "MyApp.Accounts.get_user", 8, 11),
        ("function", "MyApp.Accounts.create_user", 13, 17),
        ("function", "MyApp.Accounts.normalize", 19, 19),
        ("function", "MyApp.Accounts.admin?", 21, 23),
        ("module", "MyApp.Accounts.Token", 25, 27),
        ("function", "MyApp.Accounts.Token.sign", 26, 26),
        ("interface", "MyApp.Describable", 30, 32),
        ("method", "MyApp.Describable.describe", 31, 31),
        # `defimpl Proto, for: Type` is the module Elixir names `Proto.Type`.
        ("module", "MyApp.Describable.MyApp.Accounts", 34, 36),
        ("function", "MyApp.Describable.MyApp.Accounts.describe", 35, 35),
    ],
    "fortran": [
        ("module", "stats", 1, 26),
        ("struct", "stats.summary", 5, 8),
        ("function", "stats.mean", 12, 17),
        ("function", "stats.describe", 19, 24),
        ("module", "main", 28, 34),
    ],
    "prisma": [
        ("module", "client", 1, 3),
        ("module", "db", 5, 8),
        ("class", "Post", 11, 21),
        ("variable", "Post.id", 12, 12),
        ("variable", "Post.title", 13, 13),
        ("variable", "Post.authorId", 15, 15),
        ("variable", "Post.author", 16, 16),
        ("variable", "Post.createdAt", 17, 17),
        ("enum", "Role", 23, 26),
    ],
    "graphql": [
        ("module", "schema", 1, 5),
        ("class", "User", 7, 12),
        ("interface", "Node", 14, 16),
        ("class", "Order", 18, 21),
        ("enum", "Role", 23, 26),
        ("struct", "NewUser", 28, 30),
        ("type", "SearchResult", 32, 32),
        ("type", "DateTime", 34, 34),
        ("class", "Query", 36, 40),
        ("method", "Query.user", 37, 38),
        ("method", "Query.search", 39, 39),
        ("class", "Mutation", 42, 44),
        ("method", "Mutation.createUser", 43, 43),
        ("method", "Query.orders", 47, 47),
        ("function", "GetUser", 50, 54),
        ("function", "UserFields", 56, 59),
        ("function", "@auth", 61, 61),
    ],
    "groovy": [
        ("class", "Build", 5, 22),
        ("method", "Build.Build", 11, 13),
        ("method", "Build.step", 15, 17),
        ("method", "Build.size", 19, 21),
        ("interface", "Notifier", 24, 26),
        ("method", "Notifier.notify", 25, 25),
        ("enum", "Stage", 28, 30),
        ("function", "runAll", 32, 34),
    ],
    "haskell": [
        ("type", "Queue", 10, 11),  # the Haddock comment above it, kept with the imports
        ("type", "Size", 13, 13),
        ("type", "Items", 15, 15),
        ("interface", "Container", 17, 18),
        ("method", "Container.size", 18, 18),
        ("function", "empty", 23, 25),
        ("function", "push", 27, 28),
        ("function", "pop", 30, 33),
        ("function", "count", 35, 39),
        ("function", "isEmpty", 41, 42),
    ],
    "hcl": [
        ("module", "provider.aws", 5, 7),
        ("variable", "var.region", 9, 13),
        ("variable", "local.bucket_name", 16, 16),
        ("variable", "local.tags", 17, 17),
        ("struct", "aws_s3_bucket.logs", 20, 23),
        ("struct", "data.aws_iam_policy_document.read", 25, 30),
        ("module", "module.vpc", 32, 35),
        ("variable", "output.bucket_arn", 37, 39),
    ],
    "html": [
        ("section", "top", 9, 11),
        ("section", "content", 12, 19),
        ("section", "content.stats", 13, 15),
        ("section", "content.search-form", 16, 18),
    ],
    "json": [
        ("section", "name", 2, 2),
        ("section", "version", 3, 3),
        ("section", "scripts", 4, 7),
        ("section", "dependencies", 8, 10),
        ("section", "private", 11, 11),
    ],
    "julia": [
        ("module", "Geometry", 1, 35),
        ("struct", "Geometry.Point", 6, 9),
        ("type", "Geometry.Shape", 11, 11),
        ("struct", "Geometry.Circle", 13, 16),
        ("constant", "Geometry.ORIGIN", 18, 18),
        ("function", "Geometry.distance", 25, 27),
        ("function", "Geometry.area", 29, 29),
        ("function", "Geometry.scaled", 30, 30),  # typed, with `where`
        ("function", "Geometry.twice", 31, 33),
    ],
    "kotlin": [
        ("constant", "MAX_USERS", 5, 6),
        ("type", "UserId", 8, 8),
        ("class", "User", 10, 11),
        ("interface", "Repository", 13, 16),
        ("method", "Repository.find", 14, 14),
        ("method", "Repository.save", 15, 15),
        ("class", "MemoryRepository", 18, 32),
        ("method", "MemoryRepository.find", 22, 22),
        ("method", "MemoryRepository.save", 24, 26),
        ("class", "MemoryRepository.Factory", 28, 31),
        # `const val` in a companion object or an object
        ("constant", "MemoryRepository.Factory.LIMIT", 29, 29),
        ("method", "MemoryRepository.Factory.empty", 30, 30),
        ("class", "Registry", 34, 37),
        ("constant", "Registry.NAME", 35, 35),
        ("method", "Registry.lookup", 36, 36),
        ("enum", "Role", 39, 39),
        ("function", "greet", 41, 43),
        ("class", "Roster", 45, 51),
        # a property with a getter body runs code; a plain one is data
        ("method", "Roster.isEmpty", 46, 48),
    ],
    "lua": [
        ("function", "Cache.new", 5, 11),
        ("method", "Cache.get", 13, 15),
        ("method", "Cache.put", 17, 19),
        ("function", "hash", 21, 23),
        ("function", "clamp", 25, 27),
        ("function", "describe", 29, 31),
    ],
    "make": [
        ("function", "all", 7, 7),
        ("function", "build", 9, 10),
        ("function", "test", 12, 13),
        ("function", "clean", 18, 19),
        ("function", "banner", 21, 23),
    ],
    "nix": [
        ("variable", "version", 5, 5),
        ("function", "mkScript", 7, 7),
        ("variable", "python", 9, 9),
        ("variable", "package", 12, 16),
        ("variable", "shell", 18, 20),
    ],
    "objc": [
        ("interface", "Resettable", 3, 6),
        ("method", "Resettable.reset", 5, 5),
        ("class", "Counter", 8, 12),
        ("method", "Counter.increment", 16, 18),
        ("method", "Counter.reset", 20, 22),
        ("method", "Counter.counterWithValue", 24, 28),
        ("function", "clamp", 32, 34),
        ("function", "counterNames", 36, 38),  # a pointer's name is its declarator's
    ],
    "ocaml": [
        ("type", "t", 3, 3),
        ("constant", "empty", 7, 7),
        ("function", "push", 9, 10),
        ("function", "pop", 12, 15),
        ("module", "Counter", 17, 22),
        ("type", "Counter.t", 18, 18),
        ("function", "Counter.create", 20, 20),
        ("function", "Counter.incr", 21, 21),
        ("interface", "PRINTABLE", 24, 26),
        ("method", "PRINTABLE.print", 25, 25),
        ("class", "logger", 28, 30),
        ("method", "logger.log", 29, 29),
    ],
    "perl": [
        ("module", "Greeter", 1, 30),
        # A sub belongs to the package the last `package Name;` statement opened.
        ("function", "Greeter.new", 8, 13),
        ("function", "Greeter.greet", 15, 18),
        ("function", "Greeter._shout", 20, 23),
        ("function", "Greeter.later", 30, 30),  # not its forward declaration (line 28)
    ],
    "powershell": [
        ("function", "Get-BuildVersion", 6, 9),
        ("function", "Publish-Site", 11, 16),
        ("class", "Deployment", 18, 28),
        ("method", "Deployment.Deployment", 21, 23),
        ("method", "Deployment.Run", 25, 27),
        ("enum", "Stage", 30, 33),
    ],
    "protobuf": [
        ("struct", "User", 7, 25),
        ("struct", "User.Origin", 13, 16),
        ("enum", "User.Status", 18, 21),
        ("struct", "GetUserRequest", 27, 29),
        ("interface", "UserService", 31, 38),
        ("method", "UserService.GetUser", 33, 34),
        ("method", "UserService.ListUsers", 35, 37),
        ("enum", "Role", 40, 43),
    ],
    # scikit-learn's `.pyx` files were text with the documents' penalty: a traceback
    # naming `_sgd_fast.pyx` and its function found the file 36th (an outside audit).
    "cython": [
        ("class", "LossFunction", 10, 18),
        ("method", "LossFunction.loss", 13, 14),
        ("method", "LossFunction.dloss", 16, 18),
        ("function", "_dot", 21, 25),
        ("function", "_plain_sgd", 28, 37),
        ("function", "_plain_sgd.helper", 31, 32),
        ("class", "Plain", 40, 42),
        ("method", "Plain.fit", 41, 42),
    ],
    "r": [
        ("function", "safe_mean", 4, 8),
        ("function", "scale_by", 10, 13),
        ("function", "summarise", 15, 20),
        ("function", "summarise.helper", 16, 18),
        ("class", "Account", 22, 22),
        ("class", "Person", 24, 24),
        ("constant", "THRESHOLD", 26, 26),
    ],
    "scala": [
        ("class", "Item", 5, 6),
        ("trait", "Stock", 8, 10),
        ("method", "Stock.count", 9, 9),
        ("class", "Inventory", 12, 21),
        ("method", "Inventory.add", 16, 18),
        ("method", "Inventory.count", 20, 20),
        ("class", "Inventory", 23, 31),
        ("method", "Inventory.apply", 26, 30),
        ("enum", "Color", 33, 35),
        ("type", "Sku", 37, 37),
        ("function", "restock", 39, 40),
    ],
    "scss": [
        ("variable", "$primary", 1, 2),
        ("variable", "$radius", 3, 3),
        ("function", "rounded", 5, 7),
        ("function", "double", 9, 11),
        ("section", ".button", 13, 20),
        ("section", "%muted", 22, 24),
    ],
    "sql": [
        ("struct", "users", 1, 6),
        ("struct", "orders", 8, 12),
        ("type", "user_totals", 16, 21),
        ("function", "order_count", 23, 25),
        ("type", "order_status", 27, 27),
    ],
    "svelte": [
        ("module", "Counter", 1, 25),
        ("function", "Counter.increment", 7, 9),
        ("function", "Counter.reset", 11, 13),
    ],
    "swift": [
        ("interface", "Shape", 3, 6),
        ("method", "Shape.area", 5, 5),
        ("struct", "Circle", 8, 19),
        ("method", "Circle.init", 12, 14),
        ("method", "Circle.area", 16, 18),
        ("class", "Canvas", 21, 31),
        ("method", "Canvas.add", 24, 26),
        ("method", "Canvas.totalArea", 28, 30),
        ("enum", "Unit", 33, 36),
        ("method", "Circle.diameter", 39, 41),
        ("type", "Shapes", 44, 44),
        ("function", "describe", 46, 48),
        # computed properties are code that runs; a stored one with an observer is not
        ("method", "Canvas.count", 51, 54),
        ("method", "Canvas.isEmpty", 56, 56),
    ],
    "toml": [
        ("section", "cargo-features", 1, 2),
        ("section", "package", 4, 7),
        ("section", "dependencies", 9, 11),
        ("section", "dev-dependencies", 13, 14),
        ("section", "profile.release", 16, 17),
        ("section", "bin", 19, 21),
    ],
    "vue": [
        ("module", "UserCard", 1, 29),
        ("interface", "UserCard.User", 12, 15),
        ("function", "UserCard.refresh", 20, 22),
        ("function", "UserCard.initials", 24, 24),
    ],
    "yaml": [
        ("section", "name", 1, 2),
        ("section", "on", 4, 7),
        ("section", "env", 9, 10),
        ("section", "jobs", 12, 21),
    ],
    "zig": [
        ("constant", "max_items", 3, 4),
        ("struct", "List", 6, 22),
        ("method", "List.append", 11, 16),
        ("method", "List.last", 18, 21),
        ("enum", "Color", 24, 24),
        ("struct", "Value", 26, 29),
        ("function", "sum", 31, 35),
    ],
}

# (language, qualified name, field, expected value)
SPOT_CHECKS: list[tuple[str, str, str, object]] = [
    ("kotlin", "MAX_USERS", "doc", "Largest number of cached users."),
    ("kotlin", "MemoryRepository", "signature", "class MemoryRepository : Repository<User>"),
    ("kotlin", "MemoryRepository.find", "signature", "override fun find(id: UserId): User?"),
    ("kotlin", "MemoryRepository.Factory.empty", "parent", "MemoryRepository.Factory"),
    ("swift", "Circle", "doc", "A circle centred at the origin."),
    ("swift", "Circle.diameter", "parent", None),  # an extension is a scope, not a symbol
    ("dart", "Point.operator==", "doc", "Points with the same x are equal."),
    ("dart", "Point.operator==", "signature", "bool operator ==(Object other)"),
    ("kotlin", "Roster.isEmpty", "signature", "val isEmpty: Boolean"),
    ("kotlin", "Roster.isEmpty", "doc", "Whether nobody is on the roster."),
    ("swift", "Canvas.count", "doc", "How many shapes are drawn."),
    ("swift", "Canvas.count", "signature", "var count: Int"),
    ("scala", "Inventory.count", "signature", "def count(sku: String): Int"),
    ("lua", "Cache.new", "doc", "Creates an empty cache holding at most `size` entries."),
    ("lua", "hash", "exported", False),
    ("lua", "describe", "exported", True),
    ("elixir", "MyApp.Accounts.get_user", "doc", "Finds a user by id."),
    ("elixir", "MyApp.Accounts.get_user", "start_line", 8),  # the @doc above it
    ("elixir", "MyApp.Accounts.normalize", "exported", False),
    # A one-line function's signature ends before its `, do:` (Phoenix's map showed bodies).
    ("elixir", "MyApp.Accounts.normalize", "signature", "defp normalize(attrs)"),
    ("haskell", "push", "signature", "push :: a -> Queue a -> Queue a"),
    ("haskell", "empty", "doc", "The queue with nothing in it."),
    ("haskell", "Queue", "doc", "A first-in first-out queue made of two lists."),
    # Without the Haddock comments of its arguments (aeson's `deriveJSON`).
    ("haskell", "count", "signature", "count :: Queue a -> Int"),
    # Without a type signature, the head of its first equation (aeson showed whole bodies).
    ("haskell", "isEmpty", "signature", "isEmpty (Queue [] [])"),
    ("haskell", "Size", "exported", False),  # not in the module's export list
    ("ocaml", "push", "doc", "Pushes [x] on top of [s]."),
    ("ocaml", "push", "signature", "let push x s"),
    ("dart", "Counter.increment", "header_end_line", 15),
    ("dart", "Counter._value", "absent", None),
    ("zig", "List.last", "exported", False),
    ("zig", "List", "signature", "pub const List = struct"),
    ("julia", "Geometry.distance", "signature", "function distance(a::Point, b::Point)"),
    ("julia", "Geometry.Point", "doc", "A point in the plane."),
    # A one-line function's signature ends at its `=` (CSV.jl showed every body whole).
    ("julia", "Geometry.area", "signature", "area(c::Circle)"),
    ("julia", "Geometry.scaled", "signature", "scaled(c::Circle, k::T)::Circle where {T<:Real}"),
    ("bash", "log", "doc", "Prints a message with a timestamp."),
    ("sql", "users", "signature", "CREATE TABLE users"),
    ("hcl", "aws_s3_bucket.logs", "signature", 'resource "aws_s3_bucket" "logs"'),
    ("hcl", "aws_s3_bucket.logs", "name", "logs"),
    ("hcl", "var.region", "doc", "Region all resources live in."),
    ("yaml", "jobs", "signature", "jobs:"),
    ("toml", "profile.release", "signature", "[profile.release]"),
    ("json", "name", "signature", '"name": "web-app"'),
    ("html", "content.stats", "signature", '<section id="stats" class="card">'),
    ("make", "build", "signature", "build: $(SOURCES)"),
    ("powershell", "Deployment", "signature", "class Deployment"),
    ("objc", "Counter", "signature", "@interface Counter : NSObject <Resettable>"),
    ("objc", "clamp", "exported", False),
    ("groovy", "Build", "signature", "class Build"),  # the annotation is left out
    ("groovy", "Build", "start_line", 5),  # but its doc comment and annotation count
    ("perl", "Greeter._shout", "exported", False),
    ("fortran", "stats.mean", "signature", "function mean(values) result(m)"),
    ("r", "safe_mean", "doc", "Mean with missing values removed.\n@param x a numeric vector"),
    ("cython", "LossFunction", "doc", "Base class for convex loss functions"),
    ("cython", "_plain_sgd", "doc", "Plain SGD for generic loss functions."),
    (
        "cython",
        "_dot",
        "signature",
        "cdef inline double _dot(double* x, double* w, int n) noexcept nogil",
    ),
    ("cython", "MAX_DLOSS", "absent", None),
    ("r", "summarise.helper", "exported", False),
    ("protobuf", "UserService.GetUser", "signature", "rpc GetUser(GetUserRequest) returns (User)"),
    ("protobuf", "UserService.GetUser", "doc", "Looks one account up."),
    ("prisma", "Post", "doc", "A blog post."),
    ("prisma", "Post.authorId", "doc", "Who wrote it."),
    # a trailing comment is no part of a field's signature; `@@index` is no field
    (
        "prisma",
        "Post.author",
        "signature",
        "author User @relation(fields: [authorId], references: [id])",
    ),
    ("graphql", "User", "doc", "A customer account."),
    ("graphql", "Query.user", "doc", "Looks one user up."),
    ("graphql", "Query.user", "signature", "user(id: ID!): User"),
    ("graphql", "Query.orders", "parent", None),  # added by `extend type Query`
    ("cmake", "enable_warnings", "doc", "Adds warnings to a target."),
    ("dockerfile", "build", "signature", "FROM python:${PYTHON_VERSION}-slim AS build"),
    ("vue", "UserCard.refresh", "signature", "async function refresh(): Promise<void>"),
    ("vue", "UserCard", "signature", "<UserCard>"),
    ("svelte", "Counter.increment", "parent", "Counter"),
]


# (kind, name, line) of every reference, in file order: calls in every language with
# functions, inheritance and imports where the language names them.
EXPECTED_REFERENCES: dict[str, list[tuple[str, str, int]]] = {
    "bash": [
        ("call", "set", 3),
        ("call", "echo", 9),
        ("call", "date", 9),
        ("call", "log", 13),
        ("call", "make", 14),
        ("call", "log", 19),
        ("call", "rsync", 20),
        ("call", "build", 24),
        ("call", "deploy_to", 25),
        ("call", "main", 28),
    ],
    "dart": [
        ("import", "dart:async", 1),
        ("call", "_changes.add", 17),
        ("call", "print", 24),
        ("call", "Point", 45),
        ("call", "int.parse", 45),
        ("call", "Point", 50),
    ],
    "elixir": [
        ("import", "MyApp.Repo", 4),
        ("call", "Repo.get", 10),
        ("call", "normalize", 15),
        ("call", "Repo.insert", 16),
        ("call", "Map.new", 19),
    ],
    "fortran": [
        ("call", "sum", 16),
        ("call", "size", 16),
        ("call", "mean", 22),
        ("call", "maxval", 23),
        ("call", "minval", 23),
        ("import", "stats", 29),
        ("call", "describe", 32),
    ],
    "groovy": [
        ("import", "groovy.transform.CompileStatic", 3),
        ("call", "steps.size", 20),
        ("call", "build.steps.each", 33),
        ("call", "println", 33),
    ],
    "haskell": [
        ("import", "Data.Maybe", 8),
        ("call", "length", 21),
        ("call", "length", 21),
        ("call", "pop", 32),
        ("call", "reverse", 32),
        ("call", "length", 39),
        ("call", "length", 39),
    ],
    "julia": [
        ("call", "Point", 18),
        ("call", "sqrt", 26),
        ("call", "Circle", 30),
        ("call", "esc", 32),
        ("call", "esc", 32),
    ],
    "kotlin": [
        ("import", "kotlin.collections.HashMap", 3),
        ("inherit", "Repository", 19),
        ("call", "HashMap", 20),
        ("call", "MemoryRepository", 30),
        ("call", "users.isEmpty", 48),
    ],
    "lua": [
        ("call", "setmetatable", 7),
        ("call", "tostring", 22),
        ("call", "math.max", 26),
        ("call", "math.min", 26),
    ],
    "nix": [
        ("import", "<nixpkgs>", 2),  # a search-path import
        ("call", "pkgs.writeShellScriptBin", 7),
        ("call", "pkgs.python312.withPackages", 9),
        ("call", "pkgs.stdenv.mkDerivation", 12),
        ("call", "pkgs.mkShell", 18),
        ("call", "mkScript", 19),
    ],
    "objc": [
        ("inherit", "NSObject", 8),
        ("call", "?.init", 25),
        ("call", "Counter.alloc", 25),
    ],
    "ocaml": [
        ("call", "raise", 14),
        ("call", "ref", 20),
        ("call", "print_endline", 29),
    ],
    "perl": [
        ("import", "strict", 3),
        ("import", "warnings", 4),
        ("call", "bless", 12),
    ],
    "powershell": [
        ("call", "Trim", 8),
        ("call", "Get-Content", 8),
        ("call", "Get-BuildVersion", 14),
        ("call", "Write-Host", 15),
        ("call", "Publish-Site", 26),
        ("call", "Publish-Site", 35),
    ],
    "scala": [
        ("inherit", "Stock", 13),
        ("call", "items", 17),
        ("call", "count", 17),
        ("call", "items.getOrElse", 20),
        ("call", "Inventory", 24),
        ("call", "Inventory", 27),
        ("call", "items.foreach", 28),
        ("call", "inventory.add", 40),
        ("call", "Item", 40),
    ],
    "swift": [
        ("inherit", "Shape", 9),
        ("call", "shapes.append", 25),
        ("call", "shapes.reduce", 29),
        ("call", "shape.area", 47),
        ("call", "print", 60),
    ],
    "zig": [
        ("import", "std", 1),
        ("call", "std.testing.expectEqual", 38),
        ("call", "sum", 38),
    ],
}


def _parse_fixture(language: str) -> ParsedFile:
    path = FIXTURES / FIXTURE_FILES[language]
    assert language_for_path(path.name) == language
    return parse(path.read_text(encoding="utf-8"), language, path.name)


def _symbol(parsed: ParsedFile, qualified_name: str) -> Symbol | None:
    matches = [s for s in parsed.symbols if s.qualified_name == qualified_name]
    assert len(matches) <= 1, f"{qualified_name}: {len(matches)} matches"
    return matches[0] if matches else None


@pytest.mark.parametrize("language", sorted(EXPECTED_SYMBOLS))
def test_fixture_symbols_exact(language: str) -> None:
    parsed = _parse_fixture(language)
    assert parsed.error is None
    found = [(s.kind, s.qualified_name, s.start_line, s.end_line) for s in parsed.symbols]
    assert found == EXPECTED_SYMBOLS[language]


@pytest.mark.parametrize("language", sorted(EXPECTED_SYMBOLS))
def test_fixture_symbol_invariants(language: str) -> None:
    symbols = _parse_fixture(language).symbols
    for s in symbols:
        assert 1 <= s.start_line <= s.header_end_line <= s.end_line
        assert s.signature and "\n" not in s.signature and "  " not in s.signature
        assert s.qualified_name == s.name or s.qualified_name.endswith("." + s.name)
        if s.parent is not None:
            # A symbol of the same file, of that name, whose range holds this one.
            assert any(
                p.qualified_name == s.parent
                and p.start_line <= s.start_line
                and s.end_line <= p.end_line
                for p in symbols
            ), s


@pytest.mark.parametrize(
    ("language", "qualified_name", "field", "expected"),
    SPOT_CHECKS,
    ids=[f"{c[0]}:{c[1]}:{c[2]}" for c in SPOT_CHECKS],
)
def test_fixture_spot_checks(
    language: str, qualified_name: str, field: str, expected: object
) -> None:
    found = _symbol(_parse_fixture(language), qualified_name)
    if field == "absent":
        assert found is None
        return
    assert found is not None
    assert getattr(found, field) == expected


@pytest.mark.parametrize("language", sorted(EXPECTED_REFERENCES))
def test_fixture_references_exact(language: str) -> None:
    found = [(r.kind, r.name, r.line) for r in _parse_fixture(language).references]
    assert found == EXPECTED_REFERENCES[language]


CALL_SNIPPETS = [
    # A trailing lambda wraps the call in another call: one call, `bar.baz`.
    (
        "kotlin",
        "fun f() {\n    bar.baz(2) { qux() }\n    Builder().build()\n}\n",
        ["bar.baz", "qux", "Builder().build", "Builder"],
    ),
    ("swift", "func f() {\n    x.run { qux() }\n}\n", ["x.run", "qux"]),
    ("scala", "object M {\n  def f() = { bar.baz(2); new Thing(3) }\n}\n", ["bar.baz", "Thing"]),
    # Dart writes `a.b.c(1)` as a flat run of selectors.
    (
        "dart",
        "void f() {\n  a?.b.c(1);\n  Builder().build();\n}\n",
        ["a.b.c", "Builder", "Builder().build"],
    ),
    (
        "lua",
        "local function f()\n  obj:run(1)\n  M.new():build()\nend\n",
        ["obj.run", "M.new().build", "M.new"],
    ),
    # Not calls: definitions and their heads, special forms, `@doc`, a field read.
    (
        "elixir",
        'defmodule M do\n  @doc "Runs."\n  def run(conn) when is_map(conn) do\n'
        "    if conn.halted, do: halt(conn)\n    Conn.put_resp_header(conn)\n  end\nend\n",
        ["is_map", "halt", "Conn.put_resp_header"],
    ),
    # A function's own head is no call.
    ("julia", "function f(x)::Int\n    g(x) + Base.h(x)\nend\nk(x) = f(x)\n", ["g", "Base.h", "f"]),
    (
        "groovy",
        "def f() {\n    new Builder().build()\n    x.run { qux() }\n}\n",
        ["Builder", "?.build", "x.run", "qux"],
    ),
    (
        "objc",
        "void f() {\n    [[Builder alloc] init];\n    [self reset:1];\n}\n",
        ["?.init", "Builder.alloc", "self.reset"],
    ),
    ("perl", "sub f {\n    $self->run(1);\n    Bar::baz(2);\n}\n", ["self.run", "Bar.baz"]),
    # A command keeps its hyphen.
    ("powershell", "function F {\n    Get-Item -Path x\n    $obj.Run(3)\n}\n", ["Get-Item", "Run"]),
    ("bash", "f() {\n  g 1 | h\n}\n", ["g", "h"]),
    ("zig", "fn f() void {\n    try x.run();\n}\n", ["x.run"]),
    ("ocaml", "let f x = List.map g' x\n", ["List.map"]),
    ("haskell", "f x = go' (Bar.h x)\n", ["go'", "Bar.h"]),
    ("fortran", "program p\n  call foo(1)\nend program p\n", ["foo"]),
    ("nix", "{ a = f 1 2; }\n", ["f"]),
]


@pytest.mark.parametrize(
    ("language", "source", "calls"), CALL_SNIPPETS, ids=[c[0] for c in CALL_SNIPPETS]
)
def test_calls_are_read_as_written(language: str, source: str, calls: list[str]) -> None:
    parsed = parse(source, language, "snippet")
    assert [r.name for r in parsed.references if r.kind == "call"] == calls


def test_inheritance_is_read_in_each_object_language() -> None:
    sources = {
        "kotlin": "class A : B(), C, D by d {}\n",
        "swift": "class A: B, C {}\n",
        "scala": "class A extends B with C {}\n",
        "dart": "class A extends B with C implements D {}\n",
        "groovy": "class A extends B implements C, D {}\n",
        "objc": "@interface A : B\n@end\n",
    }
    found = {
        language: [r.name for r in parse(source, language, "snippet").references]
        for language, source in sources.items()
    }
    assert found == {
        "kotlin": ["B", "C", "D"],
        "swift": ["B", "C"],
        "scala": ["B", "C"],
        "dart": ["B", "C", "D"],
        "groovy": ["B", "C", "D"],
        "objc": ["B"],
    }


def test_annotations_and_backticks_stay_out_of_names_and_signatures() -> None:
    source = (
        '@Suppress("naming") // keep the Java name\n'
        "internal class `-Writer` {\n"
        "    @JvmStatic\n"
        "    fun `when`(a: Int): Int = a\n"
        "}\n"
    )
    found = [(s.qualified_name, s.start_line, s.signature) for s in parse(source, "kotlin").symbols]
    assert found == [
        ("-Writer", 1, "internal class `-Writer`"),
        ("-Writer.when", 3, "fun `when`(a: Int): Int"),
    ]


def test_forty_languages_have_symbols_and_fixtures() -> None:
    assert len(SYMBOL_LANGUAGES) >= 40
    assert SYMBOL_LANGUAGES | {"text"} == LANGUAGES
    assert CORE_LANGUAGES | EXTRA_LANGUAGES == TREE_SITTER_LANGUAGES
    assert not CORE_LANGUAGES & EXTRA_LANGUAGES
    assert not TREE_SITTER_LANGUAGES & PLAIN_LANGUAGES
    fixtures = {folder.name for folder in FIXTURES.iterdir() if folder.is_dir()}
    assert fixtures == SYMBOL_LANGUAGES
    for language in TREE_SITTER_LANGUAGES:
        assert treesitter.has_query(language), language
        assert treesitter.grammar_installed(language), f"{language}: make install adds it"


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("app/Main.kt", "kotlin"),
        ("build.gradle.kts", "kotlin"),
        ("Sources/App.swift", "swift"),
        ("src/Shop.scala", "scala"),
        ("script.sc", "scala"),
        ("init.lua", "lua"),
        ("rockspecs/inspect-3.1.3-0.rockspec", "lua"),
        ("lib/app.ex", "elixir"),
        ("test/app_test.exs", "elixir"),
        ("src/Queue.hs", "haskell"),
        ("stack.ml", "ocaml"),
        ("stack.mli", "ocaml"),
        ("lib/main.dart", "dart"),
        ("build.zig", "zig"),
        ("src/Geo.jl", "julia"),
        ("R/summary.R", "r"),
        ("analysis.r", "r"),
        ("deploy.sh", "bash"),
        ("setup.bash", "bash"),
        ("prompt.zsh", "bash"),
        (".bashrc", "bash"),
        ("db/schema.sql", "sql"),
        ("infra/main.tf", "hcl"),
        ("prod.tfvars", "hcl"),
        ("nomad.hcl", "hcl"),
        ("config.yaml", "yaml"),
        (".github/workflows/ci.yml", "yaml"),
        ("pyproject.toml", "toml"),
        ("package.json", "json"),
        ("api/users.proto", "protobuf"),
        ("schema.graphql", "graphql"),
        ("prisma/schema.prisma", "prisma"),
        ("query.gql", "graphql"),
        ("src/App.vue", "vue"),
        ("src/Counter.svelte", "svelte"),
        ("site.css", "css"),
        ("theme.scss", "scss"),
        ("index.html", "html"),
        ("Makefile", "make"),
        ("GNUmakefile", "make"),
        ("rules.mk", "make"),
        ("CMakeLists.txt", "cmake"),
        ("cmake/Deps.cmake", "cmake"),
        ("Dockerfile", "dockerfile"),
        ("Dockerfile.dev", "dockerfile"),
        ("Containerfile", "dockerfile"),
        ("Dockerfile.md", "markdown"),  # a known extension wins over the Dockerfile prefix
        ("build.gradle", "groovy"),
        ("Jenkinsfile", "groovy"),
        ("lib/Greeter.pm", "perl"),
        ("script.pl", "perl"),
        ("Counter.m", "objc"),
        ("Deploy.ps1", "powershell"),
        ("default.nix", "nix"),
        ("stats.f90", "fortran"),
        ("vignettes/dplyr.Rmd", "markdown"),
        ("docs/index.qmd", "markdown"),
        ("www/docs/server/routers.mdx", "markdown"),
        ("notes.xyz", "text"),
        ("LICENSE", "text"),
    ],
)
def test_language_for_path(path: str, language: str) -> None:
    assert language_for_path(path) == language
    assert language in LANGUAGES


@pytest.mark.parametrize(
    ("path", "head", "language"),
    [
        ("scripts/check", "#!/bin/sh -e\n\nmypy httpx\n", "bash"),
        ("bin/isympy", "#!/usr/bin/env python3\nimport sys\n", "python"),
        ("bin/tool", "#!/usr/bin/env -S python3.12 -u\n", "python"),
        ("bin/serve", "#! /usr/local/bin/node\n", "javascript"),
        ("bin/rake", "#!/usr/bin/env ruby\n", "ruby"),
        ("bin/run", "#!/usr/bin/env FOO=1 perl5.36 -w\n", "perl"),
        ("bin/plot", "#!/usr/bin/env Rscript\n", "r"),
        ("bin/odd", "#!/usr/bin/env tclsh\n", "text"),  # no reader for Tcl
        ("bin/empty", "#!\n", "text"),
        ("notes.txt", "#!/bin/sh\n", "text"),  # an extension decides
        ("tool.py", "#!/bin/sh\n", "python"),
        ("LICENSE", "MIT License\n", "text"),
        # A `.t` file is a Perl test when its code says so, else a cram test's transcript.
        ("t/mojo/app.t", "use Mojo::Base -strict;\n\nuse Test::More;\n", "perl"),
        ("t/basic.t", "#!perl\nuse strict;\n", "perl"),
        ("test/blackbox/run.t", '  $ dune build\n  File "x.ml"\n', "text"),
    ],
)
def test_a_script_without_an_extension_is_read_in_its_interpreters_language(
    path: str, head: str, language: str
) -> None:
    """httpx's `scripts/check` and SymPy's `bin/isympy` were chunked as plain text."""
    assert language_for_file(path, head) == language


@pytest.mark.parametrize(
    ("head", "language"),
    [
        ("#pragma once\nnamespace fmt {\ntemplate <typename T> class buffer;\n}\n", "cpp"),
        ("class Widget : public Base {\n public:\n  void draw();\n};\n", "cpp"),
        ("#include <vector>\nstruct Bag { std::vector<int> items; };\n", "cpp"),
        ("#import <Foundation/Foundation.h>\n@interface Session : NSObject\n@end\n", "objc"),
        # A C header with a C++ guard stays C; so does prose that names C++ words.
        ('#ifdef __cplusplus\nextern "C" {\n#endif\ntypedef struct J { int t; } J;\n', "c"),
        ("/* a class of namespace problems */\nint add(int a, int b);\n", "c"),
    ],
)
def test_a_header_is_read_as_the_language_its_code_is(head: str, language: str) -> None:
    """fmt's `include/fmt/format.h` read as C kept 9 structs and 83 functions of its
    classes, members and templates (13 classes, 51 structs, 186 methods as C++)."""
    assert language_for_file("include/lib/x.h", head) == language


def test_a_cpp_header_gets_its_classes_and_members() -> None:
    source = parse_file(
        "include/fmt/buffer.h",
        "namespace fmt {\nclass buffer {\n public:\n  int size() const { return n; }\n"
        " private:\n  int n;\n};\n}  // namespace fmt\n",
    )
    assert source.parsed.language == "cpp"
    assert [s.qualified_name for s in source.parsed.symbols] == ["fmt.buffer", "fmt.buffer.size"]


@pytest.mark.parametrize(
    ("path", "test"),
    [
        ("sympy/core/tests/test_basic.py", True),
        ("tests/helpers.py", True),
        ("testing/python/collect.py", True),  # pytest's own suite, at the top
        ("src/test/java/org/acme/AppTest.java", True),
        # A package's tools for its users' tests: code to change, not a test suite
        ("numpy/testing/_private/utils.py", False),
        ("sympy/testing/pytest.py", False),
        ("packages/core/testing/src/test_bed.ts", True),  # by its own name
        ("packages/core/testing/src/component_fixture.ts", False),
        ("sympy/testing/tests/test_pytest.py", True),
    ],
)
def test_a_testing_package_is_code_a_test_suite_is_not(path: str, test: bool) -> None:
    """numpy's `assert_allclose` and Sphinx's test fixtures carried the test penalty of
    the ranking, as if they were tests."""
    assert is_test_path(path) is test


def test_a_test_package_of_tools_is_told_from_a_suite_by_its_file_names() -> None:
    """Django's `django/test/` holds TestCase and the test client: no file in it is one
    a test runner collects. A suite nested in a package names its files for its runner."""
    assert nested_test_package("django/test/utils.py") == "django/test"
    assert nested_test_package("sympy/core/tests/sub/test_basic.py") == "sympy/core/tests"
    assert nested_test_package("tests/admin/tests.py") is None  # a suite at the top
    assert nested_test_package("tests/apps/test/a.py") is None  # inside a suite
    assert nested_test_package("pkg/spec/a.py") is None
    assert nested_test_package("django/utils/html.py") is None
    django = ["django/test/__init__.py", "django/test/client.py", "django/test/testcases.py"]
    assert is_test_tooling("django/test", django) is True
    for suite in ("test_client.py", "client_test.py", "conftest.py", "tests.py", "sub/test.py"):
        assert is_test_tooling("django/test", [*django, f"django/test/{suite}"]) is False
    # Not a Python package: a folder of data or of another language's tests.
    assert is_test_tooling("web/test", ["web/test/client.py", "web/test/sub/__init__.py"]) is False


LOOPS_TEMPLATE = """\
/**begin repeat
 * #TYPE = FLOAT, DOUBLE#
 */
NPY_NO_EXPORT void
@TYPE@_add(char **args, npy_intp const *dimensions)
{
    @TYPE@_pairwise_sum(args);
}
/**end repeat**/
"""


def test_a_numpy_c_template_is_read_as_c() -> None:
    """numpy keeps its ufunc loops and array types as `.c.src` templates: plain text
    windows before, without a function."""
    assert [language_for_path(p) for p in ("loops.c.src", "types.h.src", "f.inc.src")] == [
        "c",
        "c",
        "c",
    ]
    assert language_for_path("x.cpp.src") == "cpp"
    assert language_for_path("build.src") == language_for_path("app.py.src") == "text"
    source = parse_file("numpy/_core/src/umath/loops.c.src", LOOPS_TEMPLATE)
    assert source.parsed.language == "c"
    assert [(s.name, s.start_line, s.end_line) for s in source.parsed.symbols] == [
        ("_TYPE__add", 1, 8)
    ]
    assert source.lines[4] == "@TYPE@_add(char **args, npy_intp const *dimensions)"
    # `args` handed on: a value reference, kept by the graph only if a function is so named
    assert [(r.name, r.kind) for r in source.parsed.references] == [
        ("_TYPE__pairwise_sum", "call"),
        ("args", "value"),
    ]


RELEASE_NOTES = """\
===========================
Django 4.2.13 release notes
===========================

*May 7, 2024*

Django 4.2.13 fixes a packaging error in 4.2.12.
"""


@pytest.mark.parametrize(
    ("text", "language"),
    [
        (RELEASE_NOTES, "rst"),  # a title over and under
        ("=====================\n DocFactory History\n=====================\n", "rst"),
        ("Footnotes\n---------\n\n.. [1] A footnote.\n", "rst"),
        ("Changes\n=======\n\n1.0\n---\n\n* First release.\n", "rst"),  # two titles
        ("Widgets\n=======\n\nSee :class:`Widget`.\n", "rst"),  # a title and a role
        ("Widgets\n=======\n\n.. code-block:: python\n\n   w = 1\n", "rst"),
        ("Only one title\n==============\n\nand plain prose.\n", "text"),
        # pylint's expected messages, a requirements file, a rule too short for its title
        ("unused-argument:3:12:3:13:f:Unused argument 'x':HIGH\n", "text"),
        ("sphinx>=7\npyenchant\n", "text"),
        ("A long title line\n====\n\nB long title line\n====\n", "text"),
        ("prose\n=====\nright after a line of prose\n-----------------------------\n", "text"),
    ],
)
def test_a_txt_file_is_read_as_restructuredtext_when_it_is(text: str, language: str) -> None:
    """Django keeps its 600 pages of documentation as `.txt`: read as plain text windows,
    none had a section."""
    assert language_for_file("docs/releases/4.2.13.txt", text) == language
    assert language_for_file("docs/releases/4.2.13.md", text) == "markdown"


def test_a_txt_file_in_restructuredtext_gets_its_sections() -> None:
    source = parse_file(
        "docs/howto/csrf.txt",
        "How to use CSRF\n===============\n\n"
        "Using CSRF protection\n---------------------\n\nAdd the middleware.\n",
    )
    assert source.parsed.language == "rst"
    assert [s.name for s in source.parsed.symbols] == ["How to use CSRF", "Using CSRF protection"]


def test_a_script_without_an_extension_gets_symbols() -> None:
    source = parse_file("bin/deploy", "#!/usr/bin/env bash\nbuild() {\n  make\n}\nbuild\n")
    assert source.parsed.language == "bash"
    assert [s.qualified_name for s in source.parsed.symbols] == ["build"]
    assert [(r.name, r.line) for r in source.parsed.references] == [("make", 3), ("build", 5)]


@pytest.mark.parametrize(
    ("path", "example"),
    [
        ("examples/ping.py", True),
        ("samples/MediatR.Examples/Runner.cs", True),
        ("docs/demos/app.js", True),
        # Below a Maven or Gradle source root, folders are packages (Spring PetClinic).
        ("src/main/java/org/springframework/samples/petclinic/Owner.java", False),
        ("app/src/commonMain/kotlin/com/acme/examples/Repo.kt", False),
        ("samples/web/src/main/java/com/acme/App.java", True),
        ("src/examples/main.rs", True),
        ("src/sample/app.py", False),  # `sample` alone names PyPA's sample project
    ],
)
def test_example_paths(path: str, example: bool) -> None:
    assert is_example_path(path) is example


@pytest.mark.parametrize(
    ("path", "auxiliary"),
    [
        ("examples/ping.py", True),
        ("sympy/core/benchmarks/bench_basic.py", True),
        ("asv_bench/benchmarks/coding.py", True),
        ("docs_src/commands/tutorial001.py", True),
        ("doc/yaml_docs.go", False),  # cobra's package that writes docs
        ("src/main/java/com/acme/docs/Renderer.java", False),  # a package
        ("typer/main.py", False),
        ("benchmark.py", False),  # a file, not a folder of them
    ],
)
def test_auxiliary_paths_show_measure_or_document_the_project(path: str, auxiliary: bool) -> None:
    assert is_auxiliary_path(path) is auxiliary


def test_aliases_name_languages() -> None:
    assert LANGUAGE_ALIASES["kt"] == "kotlin"
    assert LANGUAGE_ALIASES["tf"] == LANGUAGE_ALIASES["terraform"] == "hcl"
    assert LANGUAGE_ALIASES["yml"] == "yaml"
    assert LANGUAGE_ALIASES["sh"] == "bash"
    assert set(LANGUAGE_ALIASES.values()) <= LANGUAGES


def test_grammars_load_lazily() -> None:
    """Importing codecompass loads no grammar; a file loads only its own."""
    script = (
        "import sys, codecompass\n"
        "from codecompass.indexing.parse import parse\n"
        "def grammars():\n"
        "    names = (m for m in sys.modules if m.startswith('tree_sitter_'))\n"
        "    return sorted(m for m in names if '.' not in m)\n"
        "before = grammars()\n"
        "parse('fun main() {}\\n', 'kotlin')\n"
        "after = grammars()\n"
        "print(before, after)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True
    ).stdout
    assert out.strip() == "[] ['tree_sitter_kotlin']"


def test_missing_grammar_is_chunked_by_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(treesitter._GRAMMARS, "kotlin", ("tree_sitter_kotlin_absent", "language"))
    text = (FIXTURES / FIXTURE_FILES["kotlin"]).read_text(encoding="utf-8")
    parsed = parse(text, "kotlin")
    assert parsed.symbols == []
    assert parsed.error == (
        "no kotlin grammar installed (pip install 'codecompass[languages]'): chunked by lines"
    )
    assert treesitter.grammar_missing("kotlin") and not treesitter.grammar_missing("text")
    lines = text.split("\n")[:-1]
    chunks = chunk_file(lines, parsed, lambda texts: [len(t.split()) for t in texts], ChunkLimits())
    assert [(c.kind, c.start_line, c.end_line) for c in chunks] == [("text", 1, len(lines))]


def test_language_without_query_file_is_chunked_by_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(treesitter._QUERY_FILES, "lua", ("no_such_query",))
    parsed = parse("local function f()\n  return 1\nend\n", "lua")
    assert parsed.symbols == []
    assert parsed.error == "no tag query for lua: chunked by lines"


def test_component_chunks_hold_template_and_script_functions() -> None:
    parsed = _parse_fixture("vue")
    lines = (FIXTURES / FIXTURE_FILES["vue"]).read_text(encoding="utf-8").split("\n")[:-1]
    chunks = chunk_file(lines, parsed, lambda texts: [len(t.split()) for t in texts], ChunkLimits())
    found = [(c.kind, c.symbol.qualified_name if c.symbol else None) for c in chunks]
    assert found == [
        ("module", "UserCard"),
        ("interface", "UserCard.User"),
        ("function", "UserCard.refresh"),
        ("function", "UserCard.initials"),
    ]
    assert "<template>" in chunks[0].text and "..." in chunks[0].text


def test_large_data_files_parse_quickly() -> None:
    """A big configuration file keeps its top-level keys; a mapping of more than
    MAX_DATA_KEYS entries is data and gets none. Both stay well inside the parse budget."""
    yaml = "".join(f"key{i}:\n  name: item {i}\n  tags: [a, b, c]\n" for i in range(MAX_DATA_KEYS))
    items = ",\n".join(
        f'  "k{i}": {{"name": "item {i}", "tags": ["a", "b"]}}' for i in range(15000)
    )
    cases = [(yaml, "yaml", MAX_DATA_KEYS), ("{\n" + items + "\n}\n", "json", 0)]
    for text, language, symbols in cases:
        started = time.perf_counter()
        parsed = parse(text, language)
        # A guard against pathological (quadratic) parsing, not a speed target.
        assert time.perf_counter() - started < 10
        assert parsed.error is None
        assert len(parsed.symbols) == symbols
    assert len(cases[1][0]) > 800_000  # near discover's 1 MB size cap


def test_polyglot_repository_accounts_for_every_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One file per language, one unknown, one whose grammar is missing and one whose
    language has no query file: every file is indexed, with symbols or chunked."""
    files = {}
    for folder in sorted(FIXTURES.iterdir()):
        (fixture,) = list(folder.iterdir())
        files[f"{folder.name}/{fixture.name}"] = fixture.read_text(encoding="utf-8")
    files["notes/todo.xyz"] = "call the vendor\nrenew the certificate\n"
    repo = make_git_repo(tmp_path / "polyglot", files)
    monkeypatch.setitem(treesitter._GRAMMARS, "zig", ("tree_sitter_zig_absent", "language"))
    monkeypatch.setitem(treesitter._QUERY_FILES, "lua", ("no_such_query",))
    engine, _ = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=TinyEmbedder())
    with engine:
        stats = engine.add_repo(repo)
        chunked_paths = {
            row[0]
            for row in peek(engine, "SELECT DISTINCT path FROM chunks WHERE status = 'active'")
        }
    assert stats.new == len(files) and not stats.skipped
    assert chunked_paths == set(files)
    expected = {language: {"symbols": 1, "chunked": 0} for language in SYMBOL_LANGUAGES}
    expected.update(
        {
            "zig": {"symbols": 0, "chunked": 1},
            "lua": {"symbols": 0, "chunked": 1},
            "text": {"symbols": 0, "chunked": 1},
        }
    )
    assert stats.languages == expected
    assert sum(sum(counts.values()) for counts in stats.languages.values()) == len(files)
    assert stats.missing_grammars == ["zig"]
    assert json.loads(json.dumps(stats.as_dict()))["missing_grammars"] == ["zig"]
    summary = _languages(stats)
    assert "lua 1 (1 without symbols)" in summary and "python 1," in summary
    assert summary.endswith(
        "; no grammar installed for zig, chunked by lines: pip install 'codecompass[languages]'"
    )


def test_powershell_comment_based_help_is_the_doc() -> None:
    """Pester documents every command with comment-based help inside its body, and every
    doc was empty: `ask` and the symbol view showed `function Should-Invoke` alone."""
    source = (
        "function Should-Invoke {\n    <#\n    .SYNOPSIS\n    Checks that a mock was called.\n\n"
        "    .PARAMETER Times\n    How many times.\n    #>\n    param($Times)\n}\n\n"
        "function Get-Last {\n    1\n    <#\n    .DESCRIPTION\n    Help at the end.\n    #>\n}\n\n"
        "<#\n.SYNOPSIS\nGets the version.\n#>\nfunction Get-Version {\n    1\n}\n\n"
        "# A plain comment above.\nfunction Get-Plain {\n    <# not help #>\n    1\n}\n"
    )
    docs = {s.name: s.doc for s in parse(source, "powershell").symbols}
    assert docs == {
        "Should-Invoke": "Checks that a mock was called.\n\n.PARAMETER Times\nHow many times.",
        "Get-Last": "Help at the end.",
        "Get-Version": "Gets the version.",
        "Get-Plain": "A plain comment above.",
    }


def test_banner_lines_are_not_doc_text() -> None:
    """json-fortran frames each doc comment in `!*****…` lines: `ask` showed the doc of
    `json_core` as a row of stars. Lines of one repeated mark are dropped (one between
    paragraphs leaves the paragraphs apart)."""
    fortran = (
        "module m\ncontains\n!"
        + "*" * 40
        + "\n!>\n!  Gets a real.\n!  ----\n!  More.\n!"
        + "*" * 40
        + "\n  subroutine get_real(x)\n  end subroutine get_real\nend module m\n"
    )
    lua = "-- ==========\n-- Joins paths.\n-- ==========\nlocal function join(a, b) end\n"
    assert _symbol(parse(fortran, "fortran"), "m.get_real").doc == "Gets a real.\n\nMore."
    assert _symbol(parse(lua, "lua"), "join").doc == "Joins paths."


def test_a_kotlin_call_after_a_unary_operator_keeps_its_receiver() -> None:
    """spring-petclinic-kotlin: `if (!StringUtils.hasLength(name))` was read as a call of
    `?.hasLength` (the grammar puts the `!` on the receiver)."""
    text = (
        "fun check(name: String?) {\n    if (!StringUtils.hasLength(name)) {}\n"
        "    -Math.abs(1)\n}\n"
    )
    facts = extract_facts("A.kt", text, parse(text, "kotlin", "A.kt"))
    assert [(r.kind, r.name, r.line) for r in facts.refs] == [
        ("call", "StringUtils.hasLength", 2),
        ("call", "Math.abs", 3),
    ]
