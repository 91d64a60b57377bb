"""`codecompass doctor`: is this installation able to index and answer, and is the index
healthy? Each check says what it found and, when something is wrong, what to do."""

from __future__ import annotations

import platform
import time
from dataclasses import asdict, dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from codecompass.errors import CodeCompassError

SAMPLES = {
    "python": b"def f(x):\n    return x\n",
    "javascript": b"function f(x) { return x; }\n",
    "typescript": b"function f(x: number): number { return x; }\n",
    "tsx": b"const A = () => <div/>;\n",
    "go": b"package m\nfunc F() {}\n",
    "java": b"class A { void f() {} }\n",
    "rust": b"fn f() {}\n",
    "c": b"int f(void) { return 0; }\n",
    "cpp": b"int f() { return 0; }\n",
    "csharp": b"class A { void F() {} }\n",
    "ruby": b"def f; end\n",
    "php": b"<?php function f() {}\n",
    "bash": b"f() { echo hi; }\n",
    "css": b"a { color: red; }\n",
    "scss": b"@mixin m { color: red; }\n",
    "html": b'<p id="a">hi</p>\n',
    "json": b'{"a": 1}\n',
    "yaml": b"a: 1\n",
    "toml": b"[a]\nb = 1\n",
    "hcl": b'variable "a" {}\n',
    "lua": b"function f() end\n",
    "make": b"all:\n\techo hi\n",
    "kotlin": b"fun f() {}\n",
    "swift": b"func f() {}\n",
    "scala": b"object A { def f(): Int = 1 }\n",
    "elixir": b"defmodule A do\n  def f, do: 1\nend\n",
    "haskell": b"f x = x\n",
    "ocaml": b"let f x = x\n",
    "dart": b"int f() { return 1; }\n",
    "zig": b"fn f() void {}\n",
    "julia": b"function f() end\n",
    "sql": b"CREATE TABLE a (b INT);\n",
    "groovy": b"def f() { 1 }\n",
    "perl": b"sub f { 1 }\n",
    "objc": b"@interface A\n@end\n",
    "powershell": b"function F { }\n",
    "nix": b"{ a = 1; }\n",
    "fortran": b"program a\nend program a\n",
}


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    status: str  # ok, warn or fail
    detail: str
    fix: str = ""

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def run_checks(data_dir: Path | None) -> list[Check]:
    checks = [_install(), _grammars(), _mcp()]
    settings, check = _settings(data_dir)
    checks.append(check)
    if settings is not None:
        checks.append(_model(settings))
        checks.extend(_index(settings, data_dir))
    return checks


def _install() -> Check:
    try:
        installed = version("codecompass")
    except PackageNotFoundError:
        installed = "not installed (running from source)"
    return Check("install", "ok", f"codecompass {installed}, Python {platform.python_version()}")


def _grammars() -> Check:
    from codecompass.indexing.languages import (
        EXTRA_INSTALL_HINT,
        EXTRA_LANGUAGES,
        TREE_SITTER_LANGUAGES,
    )
    from codecompass.indexing.treesitter import grammar_installed, parse_tree

    broken: list[str] = []
    absent: list[str] = []  # grammars of the `languages` extra that are not installed
    for language in sorted(TREE_SITTER_LANGUAGES):
        if language in EXTRA_LANGUAGES and not grammar_installed(language):
            absent.append(language)
            continue
        try:
            root = parse_tree(language, SAMPLES[language], timeout=5.0)
            if root.has_error:
                broken.append(f"{language} (parse error)")
        except Exception as exc:  # a missing wheel or an ABI mismatch: say which
            broken.append(f"{language} ({type(exc).__name__}: {exc})")
    loaded = len(TREE_SITTER_LANGUAGES) - len(absent)
    if broken:
        return Check(
            "grammars",
            "fail",
            f"{len(broken)} of {loaded} do not load: {', '.join(broken)}",
            "Reinstall codecompass (pip install --force-reinstall codecompass); those files "
            "are indexed as plain text until then.",
        )
    if absent:
        return Check(
            "grammars",
            "warn",
            f"{loaded} tree-sitter grammars parse; {len(absent)} are not installed "
            f"({', '.join(absent)}): those files are chunked by lines, without symbols",
            f"{EXTRA_INSTALL_HINT} adds them.",
        )
    return Check("grammars", "ok", f"{loaded} tree-sitter grammars parse")


def _mcp() -> Check:
    try:
        import mcp  # noqa: F401
    except ImportError as exc:
        return Check(
            "mcp", "fail", f"the MCP SDK does not import ({exc})", "Reinstall codecompass."
        )
    return Check("mcp", "ok", "the MCP SDK imports; `codecompass mcp-config CLIENT` prints a setup")


def _settings(data_dir: Path | None) -> tuple[Any, Check]:
    from codecompass.engine import find_data_dir
    from codecompass.settings import load_settings

    if data_dir is None:
        data_dir = find_data_dir(Path.cwd().resolve())
    try:
        settings = load_settings(data_dir)
    except CodeCompassError as exc:
        return None, Check("config", "fail", str(exc), "Fix the setting it names.")
    where = settings.config_path if settings.config_path.is_file() else "defaults"
    return settings, Check("config", "ok", f"{where} (backend {settings.storage.backend})")


def _model(settings: Any) -> Check:
    from codecompass.embedders import create_embedder

    e = settings.embedder
    try:
        embedder = create_embedder(
            e.provider,
            e.model or None,
            base_url=e.base_url or None,
            api_key_env=e.api_key_env or None,
            dim=e.dim or None,
        )
        began = time.perf_counter()
        vectors = embedder.embed(["def verify_token(token): return token in valid"])
        seconds = time.perf_counter() - began
    except CodeCompassError as exc:
        return Check("model", "fail", str(exc), "Fix the [embedder] settings or reinstall.")
    return Check(
        "model",
        "ok",
        f"{embedder.model_id} ({vectors.shape[1]}-d), first text embedded in {seconds:.2f} s",
    )


def _index(settings: Any, data_dir: Path | None) -> list[Check]:
    from codecompass.engine import Engine
    from codecompass.storage import index_exists

    if not index_exists(settings):
        return [
            Check(
                "index",
                "warn",
                f"no index in {settings.data_dir}",
                "Run `codecompass index PATH` (or pass --data-dir to the index you use).",
            )
        ]
    checks: list[Check] = []
    try:
        with Engine(settings) as engine:
            info = engine.status()
            chunks = sum(r["chunks"] for r in info["repos"])
            vectors = len(engine.backend.vectors(info["dim"]).ids()) if info["dim"] else 0
            changed = sum(
                sum(r["changed_on_disk"].get(k, 0) for k in ("added", "changed", "removed"))
                for r in info["repos"]
            )
    except CodeCompassError as exc:
        return [Check("index", "fail", str(exc), "Follow the fix the message names.")]
    names = ", ".join(r["id"] for r in info["repos"]) or "none"
    checks.append(
        Check(
            "index",
            "ok",
            f"{settings.data_dir}: {_count(len(info['repos']), 'repository')} ({names})",
        )
    )
    if vectors != chunks and info["indexing_now"]:
        checks.append(
            Check(
                "vectors",
                "warn",
                f"{_count(vectors, 'vector')} for {_count(chunks, 'active chunk')}: the index "
                f"run of {', '.join(info['indexing_now'])} is still computing them",
                "Wait for the run to finish.",
            )
        )
    elif vectors != chunks:
        checks.append(
            Check(
                "vectors",
                "fail",
                f"{_count(vectors, 'vector')} for {_count(chunks, 'active chunk')}",
                "Run `codecompass index` again: it repairs the vectors from the cache.",
            )
        )
    else:
        checks.append(Check("vectors", "ok", f"{_count(vectors, 'vector')}, one per active chunk"))
    if changed:
        checks.append(
            Check(
                "freshness",
                "warn",
                f"{_count(changed, 'file')} added, changed or removed since the last run",
                "Run `codecompass index` to bring the index up to date.",
            )
        )
    else:
        checks.append(Check("freshness", "ok", "no file changed since the last run"))
    return checks


def _count(n: int, noun: str) -> str:
    if n == 1:
        return f"1 {noun}"
    return f"{n} {noun[:-1]}ies" if noun.endswith("y") else f"{n} {noun}s"
