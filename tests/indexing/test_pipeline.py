"""The index pipeline end to end on small git repos, with the tiny test embedder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from codecompass.cli import main
from codecompass.engine import Engine
from codecompass.errors import ModelMismatchError
from codecompass.indexing import parse, pipeline
from codecompass.indexing.languages import language_for_path
from codecompass.models import ChunkFilter
from tests.conftest import TinyEmbedder, git, make_git_repo
from tests.peek import peek, vector_ids

AUTH = '''"""Authentication helpers."""

import hmac


def verify_token(token: str, secret: str) -> bool:
    """Check a token against the shared secret."""
    return hmac.compare_digest(token, secret)


class Session:
    """A logged-in user session."""

    def refresh(self) -> None:
        self.expires = 0
'''

UTIL = """def slugify(title):
    return title.lower().replace(" ", "-")
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_git_repo(
        tmp_path / "proj",
        {"app/auth.py": AUTH, "app/util.py": UTIL, "README.md": "# Proj\n\nA demo.\n"},
    )


def open_engine(repo: Path, tmp_path: Path, embedder: TinyEmbedder) -> Engine:
    engine, _ = Engine.for_repo(repo, data_dir=tmp_path / "data", embedder=embedder)
    return engine


def active(engine: Engine) -> set[tuple[str, int, int, str | None]]:
    return set(
        peek(
            engine, "SELECT path, start_line, end_line, symbol FROM chunks WHERE status = 'active'"
        )
    )


def test_first_run_indexes_every_file(repo: Path, tmp_path: Path) -> None:
    emb = TinyEmbedder()
    with open_engine(repo, tmp_path, emb) as engine:
        stats = engine.index(repo)
        assert (stats.new, stats.changed, stats.unchanged, stats.removed) == (3, 0, 0, 0)
        assert active(engine) == {
            ("app/auth.py", 1, 3, None),
            ("app/auth.py", 6, 8, "verify_token"),
            ("app/auth.py", 11, 15, "Session"),
            ("app/auth.py", 14, 15, "Session.refresh"),
            ("app/util.py", 1, 2, "slugify"),
            ("README.md", 1, 3, "Proj"),
        }
        assert stats.texts_embedded == 6 and stats.texts_cached == 0
        assert len(vector_ids(engine)) == 6
        hits = engine.search("verify token", k=3)
        assert (hits[0].path, hits[0].symbol, hits[0].start_line) == (
            "app/auth.py",
            "verify_token",
            6,
        )
        assert hits[0].why["lexical"]["rank"] == 1
        assert hits[0].why["matched_terms"] == ["verify", "token"]
    assert (tmp_path / "data" / ".gitignore").read_text(encoding="utf-8").endswith("*\n")
    assert (tmp_path / "data" / "config.toml").is_file()


def test_second_run_without_change_embeds_nothing(repo: Path, tmp_path: Path) -> None:
    emb = TinyEmbedder()
    with open_engine(repo, tmp_path, emb) as engine:
        engine.index(repo)
        emb.embedded.clear()
        stats = engine.index(repo)
    assert emb.embedded == []
    assert (stats.unchanged, stats.new, stats.changed, stats.chunks_added) == (3, 0, 0, 0)


def test_editing_one_function_re_embeds_only_its_chunk(repo: Path, tmp_path: Path) -> None:
    emb = TinyEmbedder()
    with open_engine(repo, tmp_path, emb) as engine:
        engine.index(repo)
        before = active(engine)
        emb.embedded.clear()
        path = repo / "app/auth.py"
        path.write_text(
            AUTH.replace("compare_digest(token, secret)", "compare_digest(secret, token)"),
            encoding="utf-8",
        )
        stats = engine.index(repo)
        assert stats.changed == 1 and stats.unchanged == 2
        assert len(emb.embedded) == 1 and "compare_digest(secret, token)" in emb.embedded[0]
        assert (stats.chunks_added, stats.chunks_removed) == (1, 1)
        assert active(engine) == before
        reasons = peek(engine, "SELECT symbol, delete_reason FROM chunks WHERE status = 'deleted'")
        assert reasons == [("verify_token", "chunk_modified")]
        assert len(vector_ids(engine)) == 6


def test_a_chunk_whose_text_stays_takes_its_new_symbol(repo: Path, tmp_path: Path) -> None:
    """Renaming `Session` left `refresh`'s chunk, whose text and lines had not changed,
    named `Session.refresh` and tied to a symbol id that no longer existed; its vector
    was still the one embedded under the old name."""
    emb = TinyEmbedder()
    with open_engine(repo, tmp_path, emb) as engine:
        engine.index(repo)
        renamed = AUTH.replace("class Session:", "class UserSession:")
        (repo / "app/auth.py").write_text(renamed, encoding="utf-8")
        emb.embedded.clear()
        stats = engine.index(repo)
        method = "SELECT symbol, symbol_id FROM chunks WHERE status = 'active' AND start_line = 14"
        assert peek(engine, method) == [
            ("UserSession.refresh", "proj/app/auth.py#UserSession.refresh")
        ]
        symbols = peek(engine, "SELECT id FROM symbols WHERE path = 'app/auth.py'")
        assert ("proj/app/auth.py#UserSession.refresh",) in symbols
        assert [text.split("\n")[1] for text in emb.embedded] == [
            "class UserSession",
            "method UserSession.refresh",
        ]
        assert (stats.chunks_added, stats.chunks_removed) == (2, 2)
        assert len(vector_ids(engine)) == 6
        # Search reads the new name (the two-line method itself ranks below its class,
        # weighed down as `short`).
        hits = engine.search("refresh session", k=5)
        assert [h.symbol for h in hits if h.start_line == 14] == ["UserSession.refresh"]


def test_files_another_reader_version_stored_are_read_again_once_from_the_cache(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upgrade that reads files differently takes effect on the next ordinary run:
    every file stored by another reader version is read again (an unchanged file's
    chunks keep their embeddings), and a file edited meanwhile counts as changed."""
    emb = TinyEmbedder()
    with open_engine(repo, tmp_path, emb) as engine:
        with monkeypatch.context() as patch:
            patch.setattr(pipeline, "READER_VERSION", 31)  # a version that changed any file
            engine.index(repo)
        before = active(engine)
        assert engine.status()["repos"][0]["files_to_read_again"] == 3
        shown = CliRunner().invoke(main, ["status", "--data-dir", str(tmp_path / "data")])
        assert "3 files were stored by another version of the reader" in shown.output
        (repo / "app/util.py").write_text(UTIL + "\n\nSEP = '-'\n", encoding="utf-8")
        emb.embedded.clear()
        stats = engine.index(repo)
        assert (stats.upgraded, stats.changed, stats.unchanged) == (2, 1, 0)
        assert emb.embedded == ["app/util.py\nSEP = '-'"]  # the header, then the text
        assert (stats.texts_embedded, stats.texts_cached) == (1, 0)
        assert (stats.chunks_added, stats.chunks_removed) == (1, 0)  # the same chunks kept
        assert active(engine) == before | {("app/util.py", 5, 5, None)}
        versions = peek(engine, "SELECT DISTINCT reader_version FROM files")
        assert versions == [(pipeline.READER_VERSION,)]
        assert engine.status()["repos"][0]["files_to_read_again"] == 0
        again = engine.index(repo)
        assert (again.upgraded, again.changed, again.unchanged) == (0, 0, 3)


def test_a_reader_change_about_some_files_reads_only_those_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Version 33 changed how `.txt` files are read: an index of version 32 reads its
    `.txt` files again, not its code (SymPy took 211 s to read all of it again)."""
    notes = "Release notes\n=============\n\nFixes\n-----\n\nA fix.\n"
    # Ruby: no reader change from 33 to 41 is about its files (38 re-reads Python, 40 Go;
    # 42 re-reads every file)
    util = "module App\n  def self.slug(s)\n    s\n  end\nend\n"
    repo = make_git_repo(tmp_path / "proj", {"app/util.rb": util, "docs/notes.txt": notes})
    monkeypatch.setattr(pipeline, "READER_VERSION", 41)
    with open_engine(repo, tmp_path, TinyEmbedder()) as engine:
        with monkeypatch.context() as patch:
            patch.setattr(pipeline, "READER_VERSION", 32)
            patch.setattr(parse, "language_for_file", lambda path, text: language_for_path(path))
            engine.index(repo)
            assert [(h.path, h.symbol) for h in engine.search("Fixes", k=3)][0][1] is None
        assert engine.status()["repos"][0]["files_to_read_again"] == 1
        stats = engine.index(repo)
        assert (stats.upgraded, stats.changed, stats.unchanged) == (1, 0, 1)
        versions = peek(engine, "SELECT path, reader_version FROM files ORDER BY path")
        assert versions == [("app/util.rb", 32), ("docs/notes.txt", pipeline.READER_VERSION)]
        hits = [(h.path, h.symbol) for h in engine.search("Fixes", k=3)]
        assert ("docs/notes.txt", "Release notes > Fixes") in hits
        assert engine.status()["repos"][0]["files_to_read_again"] == 0
        again = engine.index(repo)
        assert (again.upgraded, again.changed, again.unchanged) == (0, 0, 2)


def test_rename_reuses_vectors_and_deleted_files_leave_tombstones(
    repo: Path, tmp_path: Path
) -> None:
    emb = TinyEmbedder()
    with open_engine(repo, tmp_path, emb) as engine:
        engine.index(repo)
        emb.embedded.clear()
        git(repo, "mv", "app/util.py", "app/text.py")
        (repo / "README.md").unlink()
        stats = engine.index(repo)
        assert emb.embedded == []
        assert (stats.renamed, stats.removed, stats.texts_cached) == (1, 2, 1)
        tomb = peek(
            engine,
            "SELECT path, delete_reason FROM chunks WHERE status = 'deleted' ORDER BY path",
        )
        assert tomb == [("README.md", "file_removed"), ("app/util.py", "file_renamed")]
        paths = {h.path for h in engine.search("slugify title", k=10)}
        assert "app/text.py" in paths
        assert "app/util.py" not in paths and "README.md" not in paths
        assert len(vector_ids(engine)) == 5


def test_full_rebuild_uses_the_cache(repo: Path, tmp_path: Path) -> None:
    emb = TinyEmbedder()
    with open_engine(repo, tmp_path, emb) as engine:
        engine.index(repo)
        emb.embedded.clear()
        stats = engine.index(repo, full=True)
    assert emb.embedded == [] and stats.changed == 3 and stats.chunks_added == 0


def test_missing_vectors_are_repaired(repo: Path, tmp_path: Path) -> None:
    emb = TinyEmbedder()
    with open_engine(repo, tmp_path, emb) as engine:
        engine.index(repo)
        ids = vector_ids(engine)
        vectors = engine.backend.vectors(emb.dim)
        vectors.write([], np.zeros((0, emb.dim), dtype=np.float32), delete=ids[:2])
        stats = engine.index(repo)
        assert stats.vectors_repaired == 2
        assert sorted(vector_ids(engine)) == sorted(ids)
    assert emb.embedded and len(emb.embedded) == 6  # repaired from the cache, not re-embedded


def test_another_model_is_refused(repo: Path, tmp_path: Path) -> None:
    with open_engine(repo, tmp_path, TinyEmbedder()) as engine:
        engine.index(repo)

    class Other(TinyEmbedder):
        model_id = "test:other"

    with (
        open_engine(repo, tmp_path, Other()) as engine,
        pytest.raises(ModelMismatchError, match="built with the embedding model test:tiny-hash-64"),
    ):
        engine.search("token")


def test_filters_and_detail(repo: Path, tmp_path: Path) -> None:
    with open_engine(repo, tmp_path, TinyEmbedder()) as engine:
        engine.index(repo)
        markdown = engine.search("proj demo", where=ChunkFilter(language="markdown"))
        assert {h.path for h in markdown} == {"README.md"}
        methods = engine.search("token session", where=ChunkFilter(kind="method"))
        assert {h.kind for h in methods} == {"method"}
        util = engine.search("token", where=ChunkFilter(path_prefix="app/u"))
        assert {h.path for h in util} == {"app/util.py"}
        compact = engine.search("verify token", k=1, detail="compact")[0]
        assert compact.snippet == (
            "def verify_token(token: str, secret: str) -> bool\n"
            "Check a token against the shared secret."
        )
        full = engine.search("verify token", k=1, detail="full")[0]
        assert full.snippet == "\n".join(AUTH.split("\n")[5:8])
