"""A throwaway PostgreSQL cluster for tests: `initdb` and `pg_ctl` from the machine's
PostgreSQL (Debian's `postgresql` package, which `.ci/run` installs) on a free local
port, removed afterwards. As root, the server runs as the `postgres` system user.

Without PostgreSQL or the server extra the tests that need it skip, saying why; with
CODECOMPASS_TEST_POSTGRES=required (set by `.ci/run`) they fail instead.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest


def find_bin() -> Path | None:
    """The folder of `initdb`: on PATH, else the newest /usr/lib/postgresql/*/bin."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"),
        key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0,
    )
    return versions[-1].parent if versions else None


def unavailable() -> str | None:
    """Why PostgreSQL tests cannot run here, or None."""
    try:
        import psycopg  # noqa: F401
        import psycopg_pool  # noqa: F401
    except ImportError:
        return "the server extra is not installed (pip install 'codecompass[server]')"
    if find_bin() is None:
        return "PostgreSQL is not installed (apt-get install postgresql)"
    return None


def skip_or_fail(reason: str) -> None:
    if os.environ.get("CODECOMPASS_TEST_POSTGRES") == "required":
        pytest.fail(f"PostgreSQL is required here but {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(frozen=True)
class Cluster:
    port: int
    folder: Path

    def url(self, database: str = "codecompass") -> str:
        return f"postgresql://codecompass@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str | None = None) -> str:
        """A new empty database; returns its URL."""
        import psycopg

        name = name or f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


@contextmanager
def cluster() -> Iterator[Cluster]:
    bindir = find_bin()
    assert bindir is not None
    folder = Path(tempfile.mkdtemp(prefix="codecompass-pg-"))
    data = folder / "data"
    port = _free_port()
    as_root = os.geteuid() == 0
    prefix: list[str] = []
    if as_root:
        user = pwd.getpwnam("postgres")
        os.chown(folder, user.pw_uid, user.pw_gid)
        prefix = ["runuser", "-u", "postgres", "--"]

    def run(*args: str) -> None:
        subprocess.run([*prefix, *args], check=True, capture_output=True, timeout=120)

    try:
        run(str(bindir / "initdb"), "-D", str(data), "-U", "codecompass", "--auth=trust",
            "--encoding=UTF8", "--no-sync")  # fmt: skip
        options = (
            f"-p {port} -c listen_addresses=127.0.0.1 -k {folder} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        run(str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-w", "-l",
            str(folder / "log"), "start")  # fmt: skip
        created = Cluster(port, folder)
        import psycopg

        with psycopg.connect(created.url("postgres"), autocommit=True) as conn:
            conn.execute("CREATE DATABASE codecompass")
        yield created
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run([*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m",
                            "immediate", "stop"], capture_output=True, timeout=60)  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)
