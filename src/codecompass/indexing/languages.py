"""Map a file path to the language name the parser understands.

Detection is by file name first (a few well-known extension-less files), then by
extension, case-insensitively. Anything unrecognised is ``"text"``, which parses to
no symbols and is chunked by line windows.
"""

from __future__ import annotations

from pathlib import PurePath

LANGUAGES: frozenset[str] = frozenset(
    {
        "python",
        "javascript",
        "typescript",
        "tsx",
        "go",
        "java",
        "rust",
        "c",
        "cpp",
        "csharp",
        "ruby",
        "php",
        "markdown",
        "rst",
        "text",
    }
)

# Languages parsed with a tree-sitter grammar; markdown and rst use a pure-Python parser.
# Names people type for a language (lower-cased first): `--lang Go`, `--lang ts`.
LANGUAGE_ALIASES: dict[str, str] = {
    "py": "python",
    "js": "javascript",
    "jsx": "javascript",
    "ts": "typescript",
    "golang": "go",
    "rs": "rust",
    "c++": "cpp",
    "cxx": "cpp",
    "c#": "csharp",
    "cs": "csharp",
    "rb": "ruby",
    "md": "markdown",
    "txt": "text",
}

TREE_SITTER_LANGUAGES: frozenset[str] = frozenset(
    {
        "python",
        "javascript",
        "typescript",
        "tsx",
        "go",
        "java",
        "rust",
        "c",
        "cpp",
        "csharp",
        "ruby",
        "php",
    }
)

MARKUP_LANGUAGES: frozenset[str] = frozenset({"markdown", "rst"})

_EXTENSIONS: dict[str, str] = {
    ".py": "python",
    ".pyi": "python",
    ".pyw": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".java": "java",
    ".rs": "rust",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".cxx": "cpp",
    ".c++": "cpp",
    ".hh": "cpp",
    ".hpp": "cpp",
    ".hxx": "cpp",
    ".h++": "cpp",
    ".ipp": "cpp",
    ".inl": "cpp",
    ".cs": "csharp",
    ".rb": "ruby",
    ".rake": "ruby",
    ".gemspec": "ruby",
    ".ru": "ruby",
    ".php": "php",
    ".phtml": "php",
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdown": "markdown",
    ".mkd": "markdown",
    ".rst": "rst",
    ".rest": "rst",
}

# Exact file names (lower-cased) that carry no telling extension.
_FILE_NAMES: dict[str, str] = {
    "rakefile": "ruby",
    "gemfile": "ruby",
    "guardfile": "ruby",
    "podfile": "ruby",
    "vagrantfile": "ruby",
    "brewfile": "ruby",
    "sconstruct": "python",
    "sconscript": "python",
}


def language_for_path(path: str) -> str:
    """Language name for ``path`` (one of ``LANGUAGES``); ``"text"`` when unknown."""
    name = PurePath(path.replace("\\", "/")).name.lower()
    by_name = _FILE_NAMES.get(name)
    if by_name is not None:
        return by_name
    dot = name.rfind(".")
    if dot <= 0:
        # No extension, or a dot-file such as ".bashrc".
        return "text"
    return _EXTENSIONS.get(name[dot:], "text")


_TEST_DIRS = frozenset({"test", "tests", "testing", "__tests__", "spec", "specs"})


def is_test_path(path: str) -> bool:
    """A test, by the conventions of the common test runners."""
    parts = path.split("/")
    name = parts[-1]
    if any(part in _TEST_DIRS for part in parts[:-1]):
        return True
    stem = name.rsplit(".", 1)[0]
    return (
        name.startswith("test_")
        or stem.endswith(("_test", "_tests", ".test", ".spec"))
        or name == "conftest.py"
    )


def is_declaration_path(path: str) -> bool:
    """Type declarations only (`.d.ts`, `.pyi`): signatures of code that lives elsewhere."""
    return path.endswith((".d.ts", ".d.mts", ".d.cts", ".pyi"))
