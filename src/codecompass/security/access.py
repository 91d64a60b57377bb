"""Who may read what: principals, their bearer tokens and the scopes they may see.

A principal is a name, the SHA-256 of its bearer token (the token itself is shown once,
when it is made, and never stored) and a list of scopes: a repository, or a path prefix
of one (`api`, `web:src/`). The HTTP MCP server maps each request's token to its
principal; the engine then keeps every answer inside the principal's scopes (search
results, files, graph nodes, answers, status). Principals live in `principals.toml` in
the data folder:

    [[principal]]
    name = "ci-bot"
    token_sha256 = "3f1c…"
    scopes = ["api", "web:src/"]
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

from codecompass.errors import ConfigError, InputError
from codecompass.models import Scope
from codecompass.settings import Settings

PRINCIPALS_FILE = "principals.toml"
TOKEN_BYTES = 32


@dataclass(frozen=True, slots=True)
class Access:
    """What one principal may see; `scopes` None means everything."""

    principal: str
    scopes: tuple[Scope, ...] | None = None

    def allows(self, repo: str, path: str = "") -> bool:
        """Whether the file (or folder) `path` of `repo` lies inside a scope."""
        if self.scopes is None:
            return True
        return any(s.covers(repo, path) for s in self.scopes)

    def allows_folder(self, repo: str, folder: str) -> bool:
        """Whether everything under `folder` ('' or '.' for the root) is inside a scope."""
        folder = "" if folder in ("", ".") else folder.rstrip("/") + "/"
        return self.allows(repo, folder)

    def allows_repo(self, repo: str) -> bool:
        """Whether any part of `repo` is visible."""
        return self.scopes is None or any(s.repo == repo for s in self.scopes)

    def allows_node(self, node: str) -> bool:
        """Whether a graph node may be shown: a repository, file or symbol inside a scope.
        Unresolved names (`?x`), keywords (`kw:x`), topics (`event:kafka/x`) and rpcs
        (`rpc:shop.Checkout/PlaceOrder`) belong to no file and are shown only as the
        other end of an edge from a visible node."""
        if self.scopes is None or node.startswith(("?", "kw:", "event:", "rpc:")):
            return True
        repo, _, rest = node.partition("/")
        if not rest:
            return self.allows_repo(repo)
        return self.allows(repo, rest.split("#", 1)[0])


FULL_ACCESS = Access("local")


@dataclass(frozen=True, slots=True)
class Principal:
    name: str
    token_sha256: str
    scopes: tuple[Scope, ...]

    def access(self) -> Access:
        return Access(self.name, self.scopes)


def parse_scope(text: str) -> Scope:
    """`api` → the repository api; `web:src/` → files of web under src/."""
    repo, _, prefix = text.strip().partition(":")
    if not repo or "/" in repo:
        raise InputError(
            f"{text!r} is not a scope; write REPO or REPO:PATH_PREFIX, e.g. api or web:src/."
        )
    return Scope(repo, prefix.removeprefix("./"))


def format_scope(scope: Scope) -> str:
    return f"{scope.repo}:{scope.path_prefix}" if scope.path_prefix else scope.repo


def principals_path(settings: Settings) -> Path:
    """`[server] principals`, else principals.toml in the data folder."""
    if settings.server.principals:
        return Path(settings.server.principals).expanduser()
    return settings.data_dir / PRINCIPALS_FILE


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def load_principals(path: Path) -> list[Principal]:
    """The principals of `path` (none when the file does not exist)."""
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid TOML ({exc}); fix or delete it.") from exc
    found: list[Principal] = []
    for n, entry in enumerate(data.get("principal", []), start=1):
        name, digest, scopes = entry.get("name"), entry.get("token_sha256"), entry.get("scopes")
        if not (isinstance(name, str) and isinstance(digest, str) and isinstance(scopes, list)):
            raise ConfigError(
                f"{path}: principal #{n} needs name, token_sha256 and scopes (a list); "
                "add principals with `codecompass principal add`."
            )
        try:
            parsed = tuple(parse_scope(str(s)) for s in scopes)
        except InputError as exc:
            raise ConfigError(f"{path}: principal {name!r}: {exc}") from exc
        found.append(Principal(name, digest.lower(), parsed))
    names = [p.name for p in found]
    if len(set(names)) != len(names):
        raise ConfigError(f"{path}: principal names must be unique ({', '.join(names)}).")
    return found


def authenticate(token: str, principals: list[Principal]) -> Principal | None:
    """The principal whose token this is, compared in constant time, else None."""
    digest = token_digest(token)
    match = None
    for principal in principals:
        if hmac.compare_digest(digest, principal.token_sha256):
            match = principal
    return match


def save_principals(path: Path, principals: list[Principal]) -> None:
    """Write the file atomically, readable by its owner only (it holds token hashes)."""
    lines = [
        "# Code Compass principals: who may read what through `codecompass serve --http`.",
        "# Tokens are stored as SHA-256; manage with `codecompass principal add|list|remove`.",
        "",
    ]
    for p in principals:
        scopes = ", ".join(f'"{format_scope(s)}"' for s in p.scopes)
        lines += [
            "[[principal]]",
            f'name = "{p.name}"',
            f'token_sha256 = "{p.token_sha256}"',
            f"scopes = [{scopes}]",
            "",
        ]
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".principals-")
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("\n".join(lines))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def add_principal(path: Path, name: str, scopes: list[str]) -> str:
    """Add (or replace) a principal; return its new token, which is shown only now."""
    if not name or not name.replace("-", "").replace("_", "").replace(".", "").isalnum():
        raise InputError(f"{name!r} cannot name a principal; use letters, digits, - _ and .")
    if not scopes:
        raise InputError("Give at least one --scope REPO or REPO:PATH_PREFIX.")
    parsed = tuple(parse_scope(s) for s in scopes)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    others = [p for p in load_principals(path) if p.name != name]
    save_principals(path, [*others, Principal(name, token_digest(token), parsed)])
    return token


def remove_principal(path: Path, name: str) -> None:
    principals = load_principals(path)
    if name not in {p.name for p in principals}:
        raise InputError(f"No principal named {name!r} in {path}.")
    save_principals(path, [p for p in principals if p.name != name])


class PrincipalFile:
    """The principals of one file, read again whenever it changes (no restart needed)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int] | None = None
        self._principals: list[Principal] = []

    def principals(self) -> list[Principal]:
        try:
            st = self.path.stat()
            stamp = (st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            stamp = None
        if stamp != self._stamp:
            self._principals = load_principals(self.path) if stamp is not None else []
            self._stamp = stamp
        return self._principals

    def named(self, name: str) -> Principal | None:
        return next((p for p in self.principals() if p.name == name), None)
