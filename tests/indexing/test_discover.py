"""Discovery: git-aware and plain-folder listing, every skip reason, globs, symlinks, sniffing."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from codecompass.decoding import NOTEBOOK_SIZE_FACTOR
from codecompass.errors import ConfigError, InputError
from codecompass.indexing.discover import (
    DATA_MAX_BYTES,
    DiscoveryResult,
    DiscoveryRules,
    discover,
    read_candidate,
    sniff,
)

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def init_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "user.name", "Test")
    git(root, "config", "commit.gpgsign", "false")
    return root


def commit_all(root: Path) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "snapshot")


def write(root: Path, rel: str, content: str | bytes = "x = 1\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def paths(result: DiscoveryResult) -> list[str]:
    return [c.path for c in result.files]


@pytest.fixture
def no_git(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make discovery walk the folder as if git were not installed."""
    real_which = shutil.which

    def which(name: str, *args: object, **kwargs: object) -> str | None:
        return None if name == "git" else real_which(name)

    monkeypatch.setattr(shutil, "which", which)


Mode = Callable[[Path], Path]


@pytest.fixture(params=["git", "walk"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[Mode]:
    """Run a test once on a git repo (half committed, half untracked) and once on a folder."""
    if request.param == "git":
        if shutil.which("git") is None:
            pytest.skip("git is not installed")

        def prepare(root: Path) -> Path:
            init_repo(root)
            commit_all(root)
            return root

        yield prepare
    else:
        request.getfixturevalue("no_git")
        yield lambda root: root


# --- git-aware listing -------------------------------------------------------------------


@needs_git
def test_git_lists_tracked_and_untracked_but_not_ignored_or_deleted(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, ".gitignore", "*.log\nscratch/\n")
    write(repo, "tracked.py")
    write(repo, "gone.py")
    write(repo, "pkg/mod.py")
    commit_all(repo)
    (repo / "gone.py").unlink()
    write(repo, "untracked.py")
    write(repo, "pkg/new.py")
    write(repo, "debug.log", "ignored\n")
    write(repo, "scratch/tmp.py")

    result = discover(repo)

    assert paths(result) == [".gitignore", "pkg/mod.py", "pkg/new.py", "tracked.py", "untracked.py"]
    assert result.skipped == Counter()
    assert result.examples == {}


@needs_git
def test_git_root_as_subfolder_gives_paths_relative_to_root(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, "pkg/mod.py")
    write(repo, "pkg/sub/deep.py")
    write(repo, "other/elsewhere.py")
    commit_all(repo)
    write(repo, "pkg/sub/fresh.py")

    result = discover(repo / "pkg")

    assert paths(result) == ["mod.py", "sub/deep.py", "sub/fresh.py"]
    root = (repo / "pkg").resolve()
    for candidate in result.files:
        assert candidate.abs_path == root / candidate.path


@needs_git
def test_git_subfolder_ignored_by_its_repo_is_walked_as_a_plain_folder(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, ".gitignore", "checkout/\n")
    write(repo, "main.py")
    commit_all(repo)
    write(repo, "checkout/lib.py")
    write(repo, "checkout/.gitignore", "*.tmp\n")
    write(repo, "checkout/junk.tmp")

    assert paths(discover(repo / "checkout")) == [".gitignore", "lib.py"]


@needs_git
def test_git_env_pointing_elsewhere_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, "mine.py")
    commit_all(repo)
    other = init_repo(tmp_path / "other")
    write(other, "theirs.py")
    commit_all(other)
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))

    assert paths(discover(repo)) == ["mine.py"]


@needs_git
def test_git_nested_repository_is_counted_not_entered(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, "main.py")
    commit_all(repo)
    nested = init_repo(repo / "nested")
    write(nested, "inner.py")
    commit_all(nested)

    result = discover(repo)

    assert paths(result) == ["main.py"]
    assert result.skipped == Counter({"submodule": 1})
    assert result.examples == {"submodule": ["nested"]}


@needs_git
def test_git_tracked_file_under_a_directory_replaced_by_a_symlink_is_not_read(
    tmp_path: Path,
) -> None:
    repo = init_repo(tmp_path / "repo")
    write(repo, "lib/code.py")
    write(repo, "keep.py")
    commit_all(repo)
    outside = tmp_path / "outside"
    write(outside, "code.py", "print('outside the root')\n")
    shutil.rmtree(repo / "lib")
    (repo / "lib").symlink_to(outside, target_is_directory=True)

    result = discover(repo)

    assert paths(result) == ["keep.py"]
    # "lib" itself is an untracked symlink; "lib/code.py" is still in git's index.
    assert result.skipped == Counter({"symlink": 2})
    assert result.examples == {"symlink": ["lib", "lib/code.py"]}


# --- plain folder ----------------------------------------------------------------------


def test_plain_folder_nested_gitignore_rules(tmp_path: Path, mode: Mode) -> None:
    root = tmp_path / "proj"
    write(root, ".gitignore", "*.log\nbuild_out/\n")
    write(root, "a.py")
    write(root, "x.log")
    write(root, "local.txt")
    write(root, "build_out/z.py")
    write(root, "sub/.gitignore", "!keep.log\nlocal.txt\n/anchored.py\n")
    write(root, "sub/keep.log")
    write(root, "sub/other.log")
    write(root, "sub/local.txt")
    write(root, "sub/deep/local.txt")
    write(root, "sub/anchored.py")
    write(root, "sub/deep/anchored.py")
    write(root, ".git_not_a_repo/file.py")

    result = discover(mode(root))

    assert paths(result) == [
        ".git_not_a_repo/file.py",
        ".gitignore",
        "a.py",
        "local.txt",
        "sub/.gitignore",
        "sub/deep/anchored.py",
        "sub/keep.log",
    ]
    assert result.skipped == Counter()


def test_gitignore_lines_git_cannot_use_are_skipped(tmp_path: Path, mode: Mode) -> None:
    """black's test data holds a `.gitignore` of one `!`: git skips such a line and
    applies the rest, where pathspec raised and stopped the whole run."""
    root = tmp_path / "proj"
    write(root, "sub/.gitignore", "!\n*.log\n\\\n")
    write(root, "sub/a.py")
    write(root, "sub/x.log")

    result = discover(mode(root))

    assert paths(result) == ["sub/.gitignore", "sub/a.py"]


def test_a_glob_that_is_no_pattern_is_a_config_error(tmp_path: Path) -> None:
    write(tmp_path, "a.py")
    with pytest.raises(ConfigError) as caught:
        discover(tmp_path, DiscoveryRules(block=("*.log", "!")))
    assert str(caught.value) == (
        "[index] block: '!' is not a gitignore-style pattern. Fix or remove it in the data "
        "folder's config.toml (or CODECOMPASS_INDEX_BLOCK)."
    )


@needs_git
def test_plain_folder_with_git_installed_is_walked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Keeps git from finding a repository above tmp_path, whatever the machine.
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = tmp_path / "plain"
    write(root, ".gitignore", "out/\n")
    write(root, "a.py")
    write(root, "out/b.py")

    assert paths(discover(root)) == [".gitignore", "a.py"]


def test_walk_never_enters_dot_git(tmp_path: Path, no_git: None) -> None:
    write(tmp_path, ".git/config", "[core]\n")
    write(tmp_path, ".git/objects/ab/cdef", b"\0\1")
    write(tmp_path, "pkg/.git", "gitdir: ../.git/modules/pkg\n")
    write(tmp_path, "pkg/mod.py")

    result = discover(tmp_path)

    assert paths(result) == ["pkg/mod.py"]
    assert result.skipped == Counter()


# --- skip reasons ----------------------------------------------------------------------


def build_every_reason(root: Path) -> None:
    write(root, "src/main.py", "def main() -> None:\n    pass\n")
    write(root, "src/empty.py", "")
    write(root, "edge.txt", "e" * 10_000)
    # vendored: counted once per top-most vendored directory
    write(root, "node_modules/left-pad/index.js", "module.exports = 1;\n")
    write(root, "node_modules/b.js", "1;\n")
    write(root, ".venv/lib/site.py")
    write(root, "src/__pycache__/main.cpython-311.pyc", b"\0\0")
    write(root, ".codecompass/state.json", "{}\n")
    write(root, "docs/docsets/Kit.docset/Contents/Resources/Documents/index.html", "<p>x</p>\n")
    # secret
    write(root, ".env", "TOKEN=abc\n")
    write(root, "deploy/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n")
    write(root, "certs/server.pem", "cert\n")
    # lockfile
    write(root, "package-lock.json", "{}\n")
    write(root, "poetry.lock", "# lock\n")
    # translations: gettext catalogs, text or compiled
    write(root, "locale/de/LC_MESSAGES/app.po", 'msgid "Bad value"\nmsgstr "Falscher Wert"\n')
    write(root, "locale/app.pot", 'msgid "Bad value"\nmsgstr ""\n')
    write(root, "locale/de/LC_MESSAGES/app.mo", b"\xde\x12\x04\x95\0\0")
    # Sphinx writes each catalog as a script too (sphinx/locale/de/LC_MESSAGES/sphinx.js)
    write(root, "locale/de/LC_MESSAGES/app.js", 'Documentation.addTranslations({"x": "y"});\n')
    write(root, "src/locale/messages.de.xlf", '<xliff version="1.2"></xliff>\n')
    # media: vector images and font metrics, all text
    write(root, "tests/baseline_images/plot.SVG", '<svg><path d="M 0 0 L 1 1"/></svg>\n')
    write(root, "media/logo.ai", "%!PS-Adobe-3.0\n%%Creator: Adobe Illustrator\n")
    write(root, "fonts/afm/ptmr8a.afm", "StartFontMetrics 2.0\nFontName Times-Roman\n")
    # minified: by name twice, by content once
    write(root, "static/app.min.js", "var a=1;\n")
    write(root, "static/app.js.map", "{}\n")
    write(root, "static/bundle.js", "var a=1;" * 800 + "\n")
    # generated: by name and by marker
    write(root, "proto/msg_pb2.py", "x = 1\n")
    write(root, "api/api.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage api\n")
    write(root, "Kit.xcodeproj/project.pbxproj", "// !$*UTF8*$!\n{\n\tobjects = {};\n}\n")
    # generated HTML: a footer past the first 8 KiB (jazzy), a generator element (Sphinx)
    write(root, "docs/Classes/Session.html", JAZZY_PAGE)
    write(root, "docs/html/index.html", '<head><meta content="Docutils 0.19" name="generator">')
    write(root, "site/index.html", HAND_PAGE)
    # generated: a stylesheet Sass compiled (its source map comment past the first 8 KiB)
    # and the Maven wrapper; a stylesheet written by hand stays
    write(root, "static/css/site.css", COMPILED_CSS)
    write(root, "static/css/theme.css", COMPILED_CSS.rsplit("\n/*#", 1)[0] + "\n")
    write(root, "mvnw", "#!/bin/sh\n# Apache Maven Wrapper startup batch script\n")
    # binary: by extension and by NUL byte
    write(root, "assets/logo.png", b"\x89PNG\r\n")
    write(root, "data/blob.dat", b"head\0tail")
    # too_large: one byte over the limit
    write(root, "big.txt", "b" * 10_001)
    # blocked
    write(root, "docs/private/notes.md", "# private\n")
    # symlink to a file outside the root
    outside = root.parent / "outside.py"
    outside.write_text("secret = 'outside'\n", encoding="utf-8")
    (root / "link.py").symlink_to(outside)


EVERY_REASON_RULES = DiscoveryRules(max_file_bytes=10_000, block=("docs/private/",))


# A page as jazzy writes it: nothing in the head, the generator named in the footer only.
JAZZY_PAGE = (
    "<html><head><title>Session Class Reference</title></head><body>\n"
    + "<p>Creates a request; the generator of ids is shared.</p>\n" * 150
    + '<section class="footer"><p>Generated by <a href="https://github.com/realm/jazzy">'
    + "jazzy</a></p></section></body></html>\n"
)
# The same size, written by hand: mentions a generator, says nothing of its own making.
HAND_PAGE = JAZZY_PAGE.replace("Generated by", "Maintained by")
# Spring PetClinic's `petclinic.css`: Bootstrap compiled in, 2,603 rule sets.
COMPILED_CSS = (
    ".navbar {\n    border-top-width: 0; }\n" * 250
    + "\n/*# sourceMappingURL=../../../target/petclinic.css.map */\n"
)


def test_every_skip_reason_is_counted_exactly(tmp_path: Path, mode: Mode) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    build_every_reason(root)

    result = discover(mode(root), EVERY_REASON_RULES)

    assert paths(result) == [
        "edge.txt",
        "site/index.html",
        "src/empty.py",
        "src/main.py",
        "static/css/theme.css",
    ]
    assert result.skipped == Counter(
        {
            "vendored": 5,
            "secret": 3,
            "lockfile": 2,
            "translations": 5,
            "media": 3,
            "minified": 3,
            "generated": 7,
            "binary": 2,
            "too_large": 1,
            "blocked": 1,
            "symlink": 1,
        }
    )
    assert result.examples == {
        "vendored": [
            ".codecompass/",
            ".venv/",
            "docs/docsets/Kit.docset/",
            "node_modules/",
            "src/__pycache__/",
        ],
        "secret": [".env", "certs/server.pem", "deploy/id_rsa"],
        "lockfile": ["package-lock.json", "poetry.lock"],
        "translations": [
            "locale/app.pot",
            "locale/de/LC_MESSAGES/app.js",
            "locale/de/LC_MESSAGES/app.mo",
            "locale/de/LC_MESSAGES/app.po",
            "src/locale/messages.de.xlf",
        ],
        "media": ["fonts/afm/ptmr8a.afm", "media/logo.ai", "tests/baseline_images/plot.SVG"],
        "minified": ["static/app.js.map", "static/app.min.js", "static/bundle.js"],
        "generated": [
            "Kit.xcodeproj/project.pbxproj",
            "api/api.go",
            "docs/Classes/Session.html",
            "docs/html/index.html",
            "mvnw",
        ],
        "binary": ["assets/logo.png", "data/blob.dat"],
        "too_large": ["big.txt"],
        "blocked": ["docs/private/notes.md"],
        "symlink": ["link.py"],
    }


def test_a_name_that_is_not_utf8_is_skipped_and_shown_readable(tmp_path: Path, mode: Mode) -> None:
    """A file named in Latin-1 (`na\\xefve.py`) arrived with a surrogate escape and
    stopped the whole run: "UnicodeEncodeError: surrogates not allowed"."""
    root = tmp_path / "proj"
    write(root, "src/ok.py")
    (root / "src").joinpath(os.fsdecode(b"na\xefve.py")).write_text("x = 1\n", encoding="utf-8")
    result = discover(mode(root))
    assert paths(result) == ["src/ok.py"]
    assert result.skipped == Counter({"name_not_utf8": 1})
    assert result.examples == {"name_not_utf8": ["src/na\ufffdve.py"]}


def test_copies_of_dependencies_are_vendored(tmp_path: Path, mode: Mode) -> None:
    """pip's own code is 164 of the 465 files of `src/pip/`: the other 301 are its copies
    of requests, urllib3, rich and more under `_vendor/`."""
    root = tmp_path / "proj"
    write(root, "src/pip/_internal/download.py", "def fetch() -> None: ...\n")
    write(root, "src/pip/_vendor/urllib3/util/retry.py", "class Retry: ...\n")
    write(root, "botocore/vendored/requests/api.py", "def get(): ...\n")
    write(root, "include/spdlog/fmt/bundled/format.h", "namespace fmt {}\n")
    write(root, "third-party/zlib/zlib.h", "int deflate(void);\n")
    write(root, "thirdparty/lua/lua.c", "int main(void) { return 0; }\n")
    write(root, "3rdparty/json/json.hpp", "namespace nlohmann {}\n")
    write(root, "cextern/wcslib/C/wcs.c", "int wcsset(void);\n")  # astropy
    write(root, "extern/ttconv/ttutil.cpp", "void TtfUtil(void);\n")  # matplotlib
    write(root, "sklearn/externals/joblib/parallel.py", "class Parallel: ...\n")
    write(root, "src/external/optional.py", "x = 1\n")  # a project's own code, often: kept
    result = discover(mode(root))
    assert paths(result) == ["src/external/optional.py", "src/pip/_internal/download.py"]
    assert result.examples == {
        "vendored": [
            "3rdparty/",
            "botocore/vendored/",
            "cextern/",
            "extern/",
            "include/spdlog/fmt/bundled/",
        ]
    }
    assert result.skipped == Counter({"vendored": 9})


TRANSLATED_DOCS = {
    "docs/en/docs/tutorial/path-params.md": "# Path parameters\n",
    "docs/ko/docs/tutorial/path-params.md": "# 경로 매개변수\n",
    "docs/pt-BR/docs/tutorial/path-params.md": "# Parâmetros\n",
    "docs/ko/docs/only-in-korean.md": "# 한국어\n",  # no original: kept
    "docs/ko/mkdocs.yml": "site_name: FastAPI\n",  # not a page: kept
    "src/en/app.py": "x = 1\n",
    "src/it/app.py": "x = 2\n",  # code, not documentation: kept
    "README.md": "# Project\n",
    "README_ZH.md": "# 项目\n",
    "README.ko.md": "# 프로젝트\n",
    "guide/index.en-US.md": "# Guide\n",
    "guide/index.zh-CN.md": "# 指南\n",
    "notes_py.md": "not a language\n",
    "test/docinfo_test.rst": "Docinfo\n",
    "test/docinfo_test_no_org.rst": "Docinfo, no organization\n",  # docutils': kept
    "notes.md": "notes\n",
}


VERSIONED_DOCS = {
    "www/docs/server/middlewares.md": "# Middlewares\n",
    "www/docs/client/links.mdx": "# Links\n",
    "www/versioned_docs/version-10.x/server/middlewares.md": "# Middlewares (v10)\n",
    "www/versioned_docs/version-9.x/server/middlewares.md": "# Middlewares (v9)\n",
    "www/versioned_docs/version-10.x/client/links.md": "# Links (v10)\n",  # now MDX
    "www/versioned_docs/version-9.x/server/only-in-v9.md": "# Gone since\n",  # kept
    "www/versioned_sidebars/version-10.x-sidebars.json": "{}\n",
    # Jest keeps its current docs at the root and the older ones under `website/`.
    "docs/GettingStarted.md": "# Getting Started\n",
    "website/versioned_docs/version-29.7/GettingStarted.md": "# Getting Started (29.7)\n",
    "src/versioned_docs.py": "x = 1\n",  # code: kept
}


MESSAGE_CATALOGS = {
    "public/intl/messages/en-US.json": '{"save": "Save"}\n',  # English: kept
    "public/intl/messages/de-DE.json": '{"save": "Speichern"}\n',
    "public/intl/messages/pt-BR.json": '{"save": "Salvar"}\n',
    "locales/en/common.json": '{"save": "Save"}\n',
    "locales/fr/common.json": '{"save": "Enregistrer"}\n',
    "config/locales/es.yml": "es:\n  save: Guardar\n",
    "config/locales/en.yml": "en:\n  save: Save\n",
    "src/messages/api.json": "{}\n",  # no language: kept
    "data/de.json": "{}\n",  # not below a catalog folder: kept
    "src/locale/fr.ts": "export default {};\n",  # code: kept
}


@pytest.mark.parametrize(
    ("files", "reason", "skipped"),
    [
        # umami's 50 message catalogs were 45,382 of its 47,470 symbols.
        (
            MESSAGE_CATALOGS,
            "translations",
            [
                "config/locales/es.yml",
                "locales/fr/common.json",
                "public/intl/messages/de-DE.json",
                "public/intl/messages/pt-BR.json",
            ],
        ),
        # FastAPI keeps every page in 15 languages: the 14 copies of each answer pushed
        # its code out of the file view.
        (
            TRANSLATED_DOCS,
            "translations",
            [
                "README.ko.md",
                "README_ZH.md",
                "docs/ko/docs/tutorial/path-params.md",
                "docs/pt-BR/docs/tutorial/path-params.md",
                "guide/index.zh-CN.md",
            ],
        ),
        # Docusaurus keeps a copy of every page per released version: tRPC's middlewares
        # page three times, and both older copies ranked above the current one for "how
        # do I add authentication middleware".
        (
            VERSIONED_DOCS,
            "superseded",
            [
                "website/versioned_docs/version-29.7/GettingStarted.md",
                "www/versioned_docs/version-10.x/client/links.md",
                "www/versioned_docs/version-10.x/server/middlewares.md",
                "www/versioned_docs/version-9.x/server/middlewares.md",
            ],
        ),
    ],
    ids=["catalogs", "translated", "older-release"],
)
def test_copies_of_documentation_beside_the_original_are_skipped(
    tmp_path: Path, mode: Mode, files: dict[str, str], reason: str, skipped: list[str]
) -> None:
    root = tmp_path / "proj"
    for rel, content in files.items():
        write(root, rel, content)
    result = discover(mode(root))
    assert result.examples == {reason: skipped}
    assert paths(result) == sorted(set(files) - set(skipped))


def test_candidate_records_size_and_mtime(tmp_path: Path, mode: Mode) -> None:
    root = tmp_path / "proj"
    write(root, "a.py", "print('hi')\n")
    write(root, "empty.py", "")

    result = discover(mode(root))

    resolved = root.resolve()
    for candidate in result.files:
        st = os.stat(resolved / candidate.path)
        assert candidate.abs_path == resolved / candidate.path
        assert (candidate.size, candidate.mtime_ns) == (st.st_size, st.st_mtime_ns)
    assert [(c.path, c.size) for c in result.files] == [("a.py", 12), ("empty.py", 0)]


def test_codecompass_data_folder_is_skipped(tmp_path: Path, mode: Mode) -> None:
    root = tmp_path / "proj"
    write(root, "app.py")
    write(root, ".codecompass/index/chunks.json", "{}\n")
    write(root, ".codecompass/config.toml", "x = 1\n")
    write(root, "sub/.codecompass/other.json", "{}\n")

    result = discover(mode(root))

    assert paths(result) == ["app.py"]
    assert result.skipped == Counter({"vendored": 2})
    assert result.examples == {"vendored": [".codecompass/", "sub/.codecompass/"]}


def test_python_package_named_like_build_output_is_source(tmp_path: Path, mode: Mode) -> None:
    """coverage.py's whole package is `coverage/`, pypa/build's is `src/build/`: skipped as
    a coverage report and a build's output, they left the index with tests alone. What
    packaging and coverage write is skipped."""
    root = tmp_path / "proj"
    write(root, "coverage/__init__.py", "from coverage.control import Coverage\n")
    write(root, "coverage/control.py", "class Coverage: ...\n")
    write(root, "src/build/__init__.py", "class ProjectBuilder: ...\n")
    write(root, "lib/venv/__init__.py", "def create(env_dir): ...\n")  # the stdlib's
    write(root, "tests/roots/ext/target/__init__.py", "def func(): ...\n")  # Sphinx's
    write(root, "build/lib/pkg/__init__.py", "x = 1\n")  # setuptools' output: skipped
    write(root, "dist/app.js", "var a = 1;\n")
    write(root, "target/classes/App.java", "class App {}\n")
    write(root, "web/coverage/lcov.info", "TN:\n")
    write(root, "venv/lib/python3.12/site.py", "x = 1\n")
    write(root, "htmlcov/z_7b07_control_py.html", "<html><body>class Coverage</body></html>\n")
    write(root, "Django.egg-info/SOURCES.txt", "django/__init__.py\n")  # setuptools'
    write(root, "PKG-INFO", "Metadata-Version: 2.1\nName: Django\n")  # an sdist's
    result = discover(mode(root))
    assert paths(result) == [
        "coverage/__init__.py",
        "coverage/control.py",
        "lib/venv/__init__.py",
        "src/build/__init__.py",
        "tests/roots/ext/target/__init__.py",
    ]
    assert result.examples == {
        "generated": ["PKG-INFO"],
        "vendored": ["Django.egg-info/", "build/", "dist/", "htmlcov/", "target/"],
    }
    assert result.skipped == Counter({"vendored": 7, "generated": 1})


def test_vendored_name_as_a_file_is_not_vendored(tmp_path: Path, mode: Mode) -> None:
    root = tmp_path / "proj"
    write(root, "build", "#!/bin/sh\n")
    write(root, "tools/dist.py")

    assert paths(discover(mode(root))) == ["build", "tools/dist.py"]


def test_too_large_boundary(tmp_path: Path, mode: Mode) -> None:
    root = tmp_path / "proj"
    write(root, "exact.txt", "a" * 64)
    write(root, "over.txt", "a" * 65)
    write(root, "under.txt", "a" * 63)

    result = discover(mode(root), DiscoveryRules(max_file_bytes=64))

    assert paths(result) == ["exact.txt", "under.txt"]
    assert result.skipped == Counter({"too_large": 1})
    assert result.examples == {"too_large": ["over.txt"]}


def test_a_notebook_may_be_larger_as_its_outputs_are_not_read(tmp_path: Path, mode: Mode) -> None:
    root = tmp_path / "proj"
    write(root, "plots.ipynb", "a" * 64 * NOTEBOOK_SIZE_FACTOR)
    write(root, "huge.ipynb", "a" * (64 * NOTEBOOK_SIZE_FACTOR + 1))
    write(root, "plots.py", "a" * 65)

    result = discover(mode(root), DiscoveryRules(max_file_bytes=64))

    assert paths(result) == ["plots.ipynb"]
    assert result.examples == {"too_large": ["huge.ipynb", "plots.py"]}
    (notebook,) = result.files
    assert read_candidate(notebook, 64) == b"a" * 64 * NOTEBOOK_SIZE_FACTOR
    assert read_candidate(notebook, 63) == "too_large"


def test_a_large_data_file_is_skipped_but_not_a_manifest_or_an_api(
    tmp_path: Path, mode: Mode
) -> None:
    """moto's AMI lists per region were 52,789 of its 88,483 chunks, embedded for 15
    of its 25 minutes. Over DATA_MAX_BYTES a JSON, JSON Lines or CSV file is records;
    a manifest, an OpenAPI document and a JSON Schema stay, as does code of that size."""
    root = tmp_path / "proj"
    lines = DATA_MAX_BYTES // 8 + 1  # of 8 characters or more: over the limit
    records = "[\n" + '  {"ami": "ami-0123", "region": "us-east-1"},\n' * lines + "]\n"
    write(root, "moto/ssm/resources/amis.json", records)
    write(root, "data/rows.csv", "id,name\n" + "1,alpha\n" * lines)
    write(root, "data/events.jsonl", '{"e": 1}\n' * lines)
    write(root, "small.json", records[: DATA_MAX_BYTES - 10])
    write(root, "package.json", '{"name": "x",\n' + '  "a": 1,\n' * lines + '"b": 2}\n')
    api = '{"openapi": "3.1.0",\n "paths": {\n' + '  "/a": {},\n' * lines + "}}\n"
    write(root, "spec/api.json", api)
    # Written with sorted keys: `"openapi"` comes after a large `"components"`.
    sorted_api = '{"components": {\n' + '  "s": {},\n' * lines + '}, "openapi": "3.0.1"}\n'
    write(root, "spec/sorted.json", sorted_api)
    write(root, "schema.json", '{"$schema": "x",\n' + '  "a": 1,\n' * lines + '"b": 2}\n')
    write(root, "big.py", "value = 1\n" * lines)

    result = discover(mode(root), DiscoveryRules())

    assert paths(result) == [
        "big.py",
        "package.json",
        "schema.json",
        "small.json",
        "spec/api.json",
        "spec/sorted.json",
    ]
    assert result.examples == {
        "data": ["data/events.jsonl", "data/rows.csv", "moto/ssm/resources/amis.json"]
    }
    # Read whole (a file re-read by a run, a commit's tree), the same rule holds.
    (small,) = [c for c in result.files if c.path == "small.json"]
    write(root, "small.json", records)
    assert read_candidate(small, 1024 * 1024) == "data"
    # The head alone does not make a file data: `sniff` reads no size.
    assert sniff(records.encode()[:8192], "amis.json") is None


def test_allow_and_block_globs(tmp_path: Path, mode: Mode) -> None:
    root = tmp_path / "proj"
    write(root, "README.md", "# hi\n")
    write(root, "docs/guide.md", "# guide\n")
    write(root, "src/a.py")
    write(root, "src/b/c.py")
    write(root, "src/legacy/old.py")
    write(root, "src/b/generated_test.py")
    write(root, "src/.env", "KEY=1\n")
    write(root, "tools/x.py")
    write(root, "setup.cfg", "[x]\n")

    rules = DiscoveryRules(allow=("src/", "*.md"), block=("src/legacy/", "*_test.py"))
    result = discover(mode(root), rules)

    assert paths(result) == ["README.md", "docs/guide.md", "src/a.py", "src/b/c.py"]
    assert result.skipped == Counter({"blocked": 2, "not_allowed": 2, "secret": 1})
    assert result.examples == {
        "blocked": ["src/b/generated_test.py", "src/legacy/old.py"],
        "not_allowed": ["setup.cfg", "tools/x.py"],
        "secret": ["src/.env"],
    }


def test_examples_keep_the_first_five_sorted(tmp_path: Path, mode: Mode) -> None:
    root = tmp_path / "proj"
    for name in "gfedcba":
        write(root, f"{name}/deps.lock", "x\n")

    result = discover(mode(root))

    assert result.skipped == Counter({"lockfile": 7})
    assert result.examples == {"lockfile": [f"{n}/deps.lock" for n in "abcde"]}


# --- symlinks ---------------------------------------------------------------------------


def test_symlink_to_file_outside_root_is_not_followed(tmp_path: Path, mode: Mode) -> None:
    outside = tmp_path / "outside"
    write(outside, "passwords.txt", "hunter2\n")
    root = tmp_path / "proj"
    write(root, "real.py")
    (root / "shortcut.txt").symlink_to(outside / "passwords.txt")
    (root / "dangling.txt").symlink_to(tmp_path / "missing")

    result = discover(mode(root))

    assert paths(result) == ["real.py"]
    assert result.skipped == Counter({"symlink": 2})
    assert result.examples == {"symlink": ["dangling.txt", "shortcut.txt"]}


def test_symlinked_directories_are_not_descended(tmp_path: Path, mode: Mode) -> None:
    outside = tmp_path / "outside"
    write(outside, "lib.py")
    write(outside, "more/deep.py")
    root = tmp_path / "proj"
    write(root, "inside/own.py")
    (root / "ext").symlink_to(outside, target_is_directory=True)
    (root / "alias").symlink_to(root / "inside", target_is_directory=True)

    result = discover(mode(root))

    assert paths(result) == ["inside/own.py"]
    assert result.skipped == Counter({"symlink": 2})
    assert result.examples == {"symlink": ["alias", "ext"]}


def test_symlinked_gitignore_is_not_read(tmp_path: Path, mode: Mode) -> None:
    outside = tmp_path / "outside"
    write(outside, "rules", "*.py\n")
    root = tmp_path / "proj"
    write(root, "a.py")
    (root / ".gitignore").symlink_to(outside / "rules")

    result = discover(mode(root))

    assert paths(result) == ["a.py"]
    assert result.skipped == Counter({"symlink": 1})


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_counted_as_special_and_never_opened(tmp_path: Path, no_git: None) -> None:
    write(tmp_path, "a.py")
    os.mkfifo(tmp_path / "pipe")

    result = discover(tmp_path)

    assert paths(result) == ["a.py"]
    assert result.skipped == Counter({"special": 1})


def test_unreadable_file_is_counted(
    tmp_path: Path, mode: Mode, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "proj"
    write(root, "ok.py")
    write(root, "locked.py")
    prepared = mode(root)
    real_open = os.open

    def guarded_open(path: str | os.PathLike[str], flags: int, *args: int) -> int:
        if os.fspath(path).endswith("locked.py"):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real_open(path, flags, *args)

    monkeypatch.setattr(os, "open", guarded_open)
    result = discover(prepared)

    assert paths(result) == ["ok.py"]
    assert result.skipped == Counter({"unreadable": 1})
    assert result.examples == {"unreadable": ["locked.py"]}


# --- misc -------------------------------------------------------------------------------


def test_root_that_is_not_a_folder_is_an_input_error(tmp_path: Path) -> None:
    write(tmp_path, "file.py")
    with pytest.raises(InputError):
        discover(tmp_path / "file.py")
    with pytest.raises(InputError):
        discover(tmp_path / "missing")


def test_a_thousand_files_are_discovered_quickly(tmp_path: Path, mode: Mode) -> None:
    root = tmp_path / "proj"
    for i in range(1000):
        write(root, f"pkg{i % 20}/sub{i % 7}/mod{i}.py", f"value = {i}\n")
    prepared = mode(root)
    discover(prepared)

    start = time.perf_counter()
    result = discover(prepared)
    elapsed = time.perf_counter() - start

    assert len(result.files) == 1000
    # The target is well under 0.3 s; the bound is loose so a busy CI machine does not flake.
    assert elapsed < 1.0


# --- sniff ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("head", "path", "expected"),
    [
        (b"", "empty.js", None),
        (b"print('hi')\n", "a.py", None),
        (b"abc\0def", "a.txt", "binary"),
        (b"%PDF-1.6\r%\xe2\xe3\xcf\xd3\r1 0 obj\r<</Type/Catalog>>\r", "logo.ai", "binary"),
        (b"%PDF-1.4\n", "manual", "binary"),
        (b"% PDF-style comment\n", "notes.tex", None),
        ("h\0i\0".encode("ascii"), "utf16.txt", "binary"),
        ("\ufeffh".encode("utf-16-le"), "utf16.txt", None),
        ("\ufeffh".encode("utf-16-be"), "utf16.txt", None),
        ("\ufeff// x\n".encode("utf-16-le") + b"\x00\xd8" * 10, "bad.js", "binary"),
        ("\ufeff".encode("utf-16-le") + ("x" * 5001).encode("utf-16-le"), "a.js", "minified"),
        ("\ufeff# @generated\n".encode("utf-16-le"), "a.py", "generated"),
        ("\ufeff# @generated\n".encode("utf-8"), "a.py", "generated"),
        (b"x" * 5001, "bundle.js", "minified"),
        (b"x" * 5000 + b"\n" + b"y;\n" * 40, "bundle.js", None),
        # piggymetrics' login.js ends its lines with CR alone: 200 short lines, no line
        (b"var a = 1;\r" * 600, "login.js", None),
        (b"x" * 6000, "long.py", None),
        (b"x" * 6000 + b"\n", "styles.CSS", "minified"),
        ((b"a" * 400 + b"\n") * 3, "data.json", "minified"),
        (b"a" * 400 + b"\n", "small.json", None),
        ((b"a" * 250 + b"\n") * 10, "page.html", None),
        (b'<div title="' + b"1 " * 3000 + b'"></div>', "page.html", "minified"),
        (b"// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n", "x.go", "generated"),
        (b"# @generated by tool\nx = 1\n", "a.py", "generated"),
        (b"/*\n * This file is AUTO-GENERATED.\n */\n", "a.ts", "generated"),
        (b"<!-- autogenerated -->\n# Title\n", "a.md", "generated"),
        (b'"""Automatically generated from schema."""\n', "m.py", "generated"),
        (b"// Generated from greek.sbl by Snowball 3.0.1\n", "greek-stemmer.js", "generated"),
        (b"/* config.h.  Generated from config.h.in by configure.  */\n", "config.h", "generated"),
        (b"# Generated from Expr.g4 by ANTLR 4.13.1\n", "ExprParser.py", "generated"),
        (b"# Tokens are generated from the input by the lexer.\n", "lexer.py", None),
        (
            b"/*\n * NOTE: This is generated code. Look in numpy/linalg/lapack_lite\n",
            "f.c",
            "generated",
        ),
        (b"# This file was generated by Bundler.\n", "bin/puma", "generated"),
        (b"# The code is generated lazily, on first use.\n", "lazy.py", None),
        (b'HEADER = "Generated from x.sbl by Snowball"\n', "tool.py", None),
        (b"1\n2\n3\n4\n5\n# DO NOT EDIT\n", "late.py", None),
        (b'MARKER = "DO NOT EDIT"\n', "tool.py", None),
        (b"# do not edit lightly\n", "hand.py", None),
        # IPython's: a person keeps them.
        (
            b"# NOTE: This file has been edited manually from the auto-generated one\n",
            "conf.py",
            None,
        ),
        (
            b'"""Error script. DO NOT EDIT FURTHER! It will break exception doctests!!!"""\n',
            "e.py",
            None,
        ),
        (b"def autogenerated_ids():\n", "ids.py", None),
        # astropy's hand-written unit parsers, and the tables ply wrote beside them.
        (
            b"# License\n\n# This module includes files automatically generated from ply\n",
            "units/format/generic.py",
            None,
        ),
        (
            b"# License\n\n# This file was automatically generated from ply. To re-generate\n",
            "units/format/generic_lextab.py",
            "generated",
        ),
        # Rails's schema dump says "auto-generated", yet is where its tables' columns are
        # read (maybe's "what columns does the accounts table have" found migrations).
        (
            b"# This file is auto-generated from the current state of the database.\n",
            "db/schema.rb",
            None,
        ),
        (
            b"# This file is auto-generated from the current state of the database.\n",
            "db/seeds_dump.rb",
            "generated",
        ),
        # An OpenAPI client's SDK is how a frontend calls its backend: its HTTP calls link
        # them, so it is read as code (full-stack-fastapi-template's `sdk.gen.ts`).
        # A package's `__init__.py` a script writes is how its names are imported (mealie's
        # 13 `mealie/schema/*/__init__.py`: 517 edges into `mealie.schema` unresolved).
        (b"# This file is auto-generated by gen_schema_exports.py\n", "schema/__init__.py", None),
        (b"# This file is auto-generated by gen_schema_exports.py\n", "schema/all.py", "generated"),
        (b"// This file is auto-generated by @hey-api/openapi-ts\n", "sdk.gen.ts", None),
        (b"/* generated using openapi-typescript-codegen -- do not edit */\n", "a.ts", None),
        (b"# NOTE: This class is auto generated by OpenAPI Generator\n", "pet_api.py", None),
        (b"// Generated by orval \xf0\x9f\x8d\xba\n// Do not edit manually.\n", "api.ts", None),
        (b'<meta name="generator" content="rustdoc">', "struct.Foo.html", "generated"),
        (b"<html>\n<head>\n<!-- Generated by javadoc (17) -->\n", "Foo.HTML", "generated"),
        (b"<p>x</p>\n<hr><address>Generated by doxygen 1.9.8</address>\n", "a.htm", "generated"),
        (b'<meta name="viewport" content="width=1">\n<p>A generator of ids.</p>\n', "i.html", None),
        # Django's templates: prose about pages, not a tool's footer.
        (b"<p>a standard page generated by the handler for this status</p>\n", "500.html", None),
        (b"<p>{% translate 'Each page is generated by a view.' %}</p>\n", "index.html", None),
        (b'<meta name="generator" content="x">\n', "notes.md", None),
    ],
)
def test_sniff(head: bytes, path: str, expected: str | None) -> None:
    assert sniff(head, path) == expected


def test_an_html_page_is_judged_by_its_tail_when_one_is_given() -> None:
    head, tail = JAZZY_PAGE[:8192].encode(), JAZZY_PAGE[-2048:].encode()
    assert sniff(head, "Session.html") is None  # the head alone says nothing
    assert sniff(head, "Session.html", tail) == "generated"
    assert sniff(head, "Session.md", tail) is None
    assert sniff(head, "Session.html", HAND_PAGE[-2048:].encode()) is None


def test_reading_a_generated_page_reports_it(tmp_path: Path) -> None:
    # The page may have been rewritten between discovery and reading: the read checks again.
    page = write(tmp_path, "docs/Session.html", HAND_PAGE)
    candidate = discover(tmp_path).files[0]
    page.write_text(JAZZY_PAGE, encoding="utf-8")
    assert read_candidate(candidate, 1 << 20) == "generated"


def test_a_tree_thousands_of_folders_deep_is_walked(tmp_path: Path, mode: Mode) -> None:
    # Issue 14, defect 8: a recursive walk ended the whole run with a RecursionError.
    root = tmp_path / "proj"
    deep = "d/" * 1500
    folder = root
    for _ in range(1500):  # os.makedirs itself recurses
        folder = folder / "d"
        folder.mkdir(parents=folder.parent == root)
    write(root, "top.py", "x = 1\n")
    write(root, deep + "bottom.py", "y = 2\n")
    write(root, "d/.gitignore", "*.log\n")
    write(root, deep + "noise.log", "ignored by d/.gitignore\n")

    try:
        result = discover(mode(root))
    finally:
        _remove_deep_tree(root / "d")  # pytest's own clean-up of tmp folders recurses

    assert paths(result) == ["d/.gitignore", deep + "bottom.py", "top.py"]


def _remove_deep_tree(top: Path) -> None:
    folders = [top]
    while (folders[-1] / "d").is_dir():
        folders.append(folders[-1] / "d")
    for folder in reversed(folders):
        for entry in folder.iterdir():
            if not entry.is_dir():
                entry.unlink()
        folder.rmdir()


def test_a_script_beside_its_minified_copy_is_skipped_as_generated(
    tmp_path: Path, mode: Mode
) -> None:
    """Phoenix ships `priv/static/phoenix.js` beside `phoenix.min.js`: a bundle of its
    `assets/js/` sources that led the repository's map."""
    root = tmp_path / "proj"
    for rel in (
        "priv/static/phoenix.js",
        "priv/static/phoenix.min.js",
        "priv/static/app.css",
        "priv/static/app.min.css",
        "assets/js/phoenix/socket.js",
        "assets/js/phoenix/socket.ts",  # another extension of the same stem: kept
        "src/min.js",
    ):
        write(root, rel, "let x = 1\\n")
    result = discover(mode(root))
    assert result.examples == {
        "generated": ["priv/static/app.css", "priv/static/phoenix.js"],
        "minified": ["priv/static/app.min.css", "priv/static/phoenix.min.js"],
    }
    assert paths(result) == [
        "assets/js/phoenix/socket.js",
        "assets/js/phoenix/socket.ts",
        "src/min.js",
    ]
