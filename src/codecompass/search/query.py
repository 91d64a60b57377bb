"""Query understanding: what a free-text question, an issue or a pasted traceback names.

`parse_query` pulls out, in order of appearance:
- **frames** of stack traces: Python `File "pkg/mod.py", line 12, in func` and
  JavaScript `at func (src/x.js:3:7)` / `at src/x.js:3:7`;
- **paths**: `pkg/mod.py`, `src/app.ts`, `./a/b.go` (a slash or a known source extension);
- **dotted names**: `Request.register_hook`, `sympy.core.mod` (module paths or qualified
  names; their last parts are identifiers too);
- **identifiers**: words that can only be code — snake_case, camelCase, CamelCase with an
  inner capital, a name followed by `(` or written in backticks — plus every word of a
  code span (inline backticks or a fenced block);
- **quoted strings** (in "…" or '…', 3–200 characters) and **error messages**
  (`ValueError: text`, `error: text`);
- **literals**: what code may hold as a string literal, written in backticks or quotes
  (a message id `invalid-name`, an option `--ignore-patterns`, a key `end_lineno`, a file
  name `searchindex.js`), and the words of prose that can only be such a string: a
  lower-case word joined by hyphens (`used-before-assignment`) or an option (`--force`);
- **terms**: the code-aware tokens of the whole text (see `tokens.code_tokens`).

`query_windows` splits a long text into what the embedding model reads (see there).

Nothing here looks at the index: it only reads the text.
"""

from __future__ import annotations

import bisect
import itertools
import keyword
import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from codecompass.search.protocols import special_methods
from codecompass.tokens import code_tokens

_EXTENSIONS = (
    "py pyi pyx js jsx mjs cjs ts tsx go java kt rs c h cc cpp hpp cs rb php swift scala "
    "md rst toml yaml yml json cfg ini sh "
    # templates and the files beside code: a Rails view in a pasted ActionView backtrace
    "erb haml slim rake html css scss vue sql proto tf"
)
SOURCE_EXTENSIONS = frozenset(_EXTENSIONS.split())

_PY_FRAME = re.compile(r'File "([^"\n]+)", line (\d+)(?:, in ([\w<>.]+))?')
# A script's path in a frame, captured, may be a URL: `file:///app/x.mjs` (Node's ES
# modules), `http://localhost:5173/src/App.tsx?t=1700000000000` (a browser, Vite),
# `webpack-internal:///./src/view.js`. The scheme and host are read possessively: linear.
_SCRIPT_PATH = (  # Next.js puts its layer first: `webpack-internal:///(rsc)/./src/x.js`
    r"(?:(?:file|https?|webpack(?:-internal)?)://[^/\s()]*+(?:/\([\w-]+\))?)?"
    r"((?:/?[A-Za-z]:)?[\w./\\@~-]+\.[A-Za-z]{1,4})(?:\?[^\s:()]*)?"
)
# V8 and Node (`at Router.handle (…)`). A private method keeps its `#` (`Ky.#retry`).
_JS_FRAME = re.compile(
    r"\bat (?:(?:async )?([\w$#.<>\[\] ]{1,200}?) \()?"  # bounded: `at a at a …` ran on
    + _SCRIPT_PATH
    + r":(\d+)(?::\d+)?\)?"
)
# Firefox and Safari (`retry@http://localhost:5173/src/ky.js:297:20`, `outer/<@…`,
# `async*fetchAll@…`): one frame a line.
_GECKO_FRAME = re.compile(
    r"^[ \t]*(?:async\*)?([\w$#.<>/]{0,200})@" + _SCRIPT_PATH + r":(\d+):\d+[ \t]*$", re.M
)
# IPython tracebacks (`…/mod.py in func(args)`) and pytest ones (`mod.py:12: in func`).
_IPY_FRAME = re.compile(r"^[^\S\n]*(\S+\.py) in ([\w<>]+)\(", re.M)
# IPython 8 and Jupyter: `File ~/lib/x.py:1272, in Index.sel(self, key)`.
_IPY8_FRAME = re.compile(r"^[^\S\n]*File ([^\s,\"]+\.py):(\d+)(?:, in ([\w<>.]+))?", re.M)
# Between the tracebacks of a chain. After "direct cause" (`raise … from e`) the first
# traceback is the cause, where the failure is; after "During handling" the first was
# being handled (an expected error) and the last holds the failure.
_DIRECT_CAUSE = r"The above exception was the direct cause of the following exception:"
_CHAINED = re.compile(
    r"^[^\S\n]*(?:During handling of the above exception, another exception occurred:"
    rf"|{_DIRECT_CAUSE})",
    re.M,
)
_CAUSED = re.compile(rf"^[^\S\n]*{_DIRECT_CAUSE}", re.M)
# Rich's boxed traceback (`rich.traceback`, Textual's crash output, Typer's):
# `│ /app/.venv/…/textual/widget.py:4285 in render_lines`.
_RICH_FRAME = re.compile(r"^[^\S\n]*[│┃|][^\S\n]*(\S+\.py):(\d+) in ([\w<>]+)", re.M)
_PYTEST_FRAME = re.compile(r"^[^\S\n]*(\S+\.py):(\d+): in ([\w<>]+)", re.M)
# JVM (`at com.acme.shop.OrderService.place(OrderService.java:42)`): the package is the
# file's folder.
_JVM_FRAME = re.compile(
    r"\bat ((?:[A-Za-z_][\w]*\.)*)([\w$]+)\.([\w$<>]+)\(([\w$-]+\.(?:java|kt|scala|groovy)):(\d+)\)"
)
# The Java platform's own frames (`at java.base/java.lang.Long.parseLong(Long.java:711)`,
# `at jdk.internal.reflect.DirectMethodHandleAccessor.invoke(…)`, `(Native Method)`):
# their names are the runtime's, not the project's.
_JVM_PLATFORM_FRAME = re.compile(
    r"\bat (?:[\w.]+/)?(?:java|javax|jdk|sun|com\.sun|kotlin|kotlinx|scala)\.[\w$.<>]+\([^()\n]*\)"
)
# A chained cause (`Caused by: java.lang.NumberFormatException: …`) is printed after the
# exception that wrapped it: the last one is where the failure began.
_JVM_CAUSE = re.compile(r"^[^\S\n]*Caused by: ", re.M)
# .NET (`at Acme.Shop.OrderService.Place(Order order) in C:\src\OrderService.cs:line 42`).
_DOTNET_FRAME = re.compile(
    r"\bat (?:[\w.`]+\.)?([\w`]+)\.([\w<>]+)\([^()\n]*\) in (.{1,500}?):line (\d+)"
)
# .NET as a Release build prints a frame, with no file (`at Serilog.Core.Logger.Write(
# LogEventLevel level, String messageTemplate)`): a line of its own, in a namespace
# (capitalized, as .NET's are and the JVM's packages are not), the parameters typed.
# A nested type is `Outer+Inner`. The platform's own frames (`System.`, `Microsoft.`)
# name none of the repository's code.
_DOTNET_BARE_FRAME = re.compile(
    r"^[^\S\n]*at ((?!System\.|Microsoft\.)[A-Z]\w*(?:\.\w+)*)\.(\w+)(?:\+(\w+))?\.(\w+)"
    r"\((?:[\w.`\[\]<>,&* ]+ \w+)?\)[^\S\n]*$",
    re.M,
)
# Go (`main.(*Server).handle(0x0)` over `\t/app/server.go:42 +0x1d`; indented in a race
# report). A closure (`Open.func1.2`, `Run.gowrap1`) is its function's.
# The package path ends at the first dot after its last slash (Go escapes a dot in the
# last element as `%2e`); a method's receiver follows, `(*T).` or a value's `T.`; a
# generic's type arguments print as `[...]`. The goroutine's creator (`created by
# pkg.fn in goroutine 9`) is its outermost frame.
_GO_CLOSURE = r"(?:\.(?:func|gowrap|deferwrap)\d+(?:\.\d+)*)*(?:-fm)?"
_GO_GENERIC = r"(?:\[\.\.\.\])?"
_GO_FRAME = re.compile(
    r"^[^\S\n]*(?P<created>created by )?(?P<package>(?:[\w.%-]+/)*[\w%-]+\.)"
    rf"(?:\(\*?(?P<pointer>\w+){_GO_GENERIC}\)\."
    rf"|(?P<value>\w+){_GO_GENERIC}\.(?!(?:func|gowrap|deferwrap)\d))?"
    rf"(?P<name>\w+){_GO_GENERIC}(?P<closure>{_GO_CLOSURE})"
    r"(?(created)(?: in goroutine \d+)?|\(.*\))\n"
    r"\s+(?P<path>\S+\.go):(?P<line>\d+)",
    re.M,
)
# A panic's own frames follow its `panic(` line; those above it are the deferred calls
# that ran during it (a recovery handler): outer to the failure.
_GO_PANIC = re.compile(r"^panic\(", re.M)
# Go's stack as gin's recovery and go-errors print it (`/app/ws.go:41 (0x9e31c7)` over
# `\t(*Upgrader).Upgrade: source line`).
_GO_PC_FRAME = re.compile(
    rf"^[^\S\n]*(\S+\.go):(\d+) \(0x[0-9a-f]+\)\n\t(?:\(\*?(\w+)\)\.)?(\w+){_GO_CLOSURE}:",
    re.M,
)
# Rust backtraces (`  3: shapes::Circle::area` over `      at ./src/shapes.rs:12:9`).
_RUST_FRAME = re.compile(
    r"^[^\S\n]*\d+: +((?:\w+::)*?)(\w+)(?:::\{\{closure\}\})*(?:::h[0-9a-f]{16})?"
    r"\n\s+at (\S+\.rs):(\d+)",
    re.M,
)
# Ruby (`app/models/user.rb:12:in `full_name'`, Ruby 3.4: `in 'User#full_name'`).
_RUBY_FRAME = re.compile(r"(?<!\S)(\S+\.rb):(\d+):in [`']([^`'\n]+)'")
# PHP (`#0 /app/src/Client.php(87): GuzzleHttp\Handler->send(Object(…))`): a frame's line is
# a call, made by the function the next frame calls; a closure's or `{main}` call has a
# line only.
_PHP_FRAME = re.compile(r"#(\d+) (\S+\.php)\((\d+)\): ([^\n]*)")
_PHP_CALLEE = re.compile(r"(?<![\w\\])(?:[\w\\]*\\)?(\w+)(?:(?:->|::)(\w+))?\(")
# Where the uncaught exception was thrown: in the function `#0` calls.
_PHP_THROWN = re.compile(r"\bin (\S+\.php)(?::| on line )(\d+)")
_PATH = re.compile(r"(?<![\w/.@-])((?:\.{0,2}/)?(?:[\w@.-]+/)*[\w@-][\w.@-]*\.([A-Za-z]{1,5}))\b")
# A program's entry file, relative (`src/main.rs:7:32`, `main.go:12:5`): the user's own
# program far more often than the repository's file of that name, which every crate has.
_ENTRY_FILE = re.compile(r"(?:src/)?(?:main|lib|index|app|__main__|Program)\.\w+")
# A path's line, as a compiler's, linter's or test runner's location gives it:
# `doc/yaml_docs.go:156:6: QF1001 …`, mypy's `pkg/mod.py:12: error: …`, rustc's
# `--> src/main.rs:7:32`, tsc's `src/x.ts(12,5): error TS2554: …`. It points at a line as
# a code host's link does; PHP's `in /app/src/Client.php on line 103` too.
_LINE_AFTER = re.compile(
    r"(?::(\d{1,7})(?::\d+)?|\((\d{1,7}),\d+\)|[^\S\n]+on line (\d{1,7}))(?![\w.])"
)
# Neither starts after a hyphen (`proxy-ca.pem`, `xn--ls8h.la`) nor stops before a letter
# outside ASCII (`Zoë` is no name `Zo`).
_DOTTED = re.compile(r"(?<![\w./\\-])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)(?![\w])")
_WORD = re.compile(r"(?<![\w.])([A-Za-z_][A-Za-z0-9_]*)(?!\w)")
# A path of Rust, C++, Ruby or PHP (`serde_json::Map`, `Value::as_str`, `ActiveRecord::Base`):
# code, whatever the shape of its last name. The standard library's (`std::fs::read`)
# names none of the repository's code, nor do the path's keywords (`crate`, `Self`).
_SCOPED = re.compile(r"(?<![\w:.])([A-Za-z_]\w*(?:::[A-Za-z_]\w*)+)(?![\w\\])")
_STANDARD_ROOTS = frozenset({"std", "core", "alloc"})
_PATH_KEYWORDS = frozenset({"crate", "self", "Self", "super"})
# A call starts where a run of name characters does (its leading digits and dots are
# skipped): tried at every character instead, a 60 KB run without `(` took 25 s.
# A call, with a generic's type arguments if any (`hc<AppType>(`, `new Map<K, V<W>>(`).
_TYPE_ARGS = r"(?:<[^<>()\n]{1,80}(?:<[^<>()\n]{1,80}>[^<>()\n]{0,20})?>)?"
_CALL = re.compile(rf"(?<![A-Za-z0-9_.])[0-9.]*([A-Za-z_][A-Za-z0-9_.]*){_TYPE_ARGS}[^\S\n]*\(")
_PLURAL = re.compile(r"e?s\)")  # after `file(`: "file(s)" in prose is a plural
_FENCE = re.compile(r"```(?P<info>[^\n`]*)\n(?P<code>.*?)(?:```|$)", re.S)  # no ` in an info
# A fence's language that may be Python: special methods are read from these only.
_PYTHON_FENCES = frozenset({"", "py", "python", "python3", "py3", "pycon", "ipython", "pyi"})
# Markdown's `x` and reST's ``x``: read as one, a double pair shifts no later pairing.
_INLINE = re.compile(r"(``?)(?P<code>[^`\n]{1,200})\1")
# A Python traceback's own words, which name nothing: "Traceback", "File", "During".
_TRACEBACK_WORDS = re.compile(
    r"(?:Exception Group )?Traceback \(most recent call last\):?|"
    r"\bFile (?=\"[^\"\n]+\", line \d|[^\s,\"]+\.py:\d)|" + _CHAINED.pattern,
    re.M,
)
# A frame of Python's standard library, and the source line under it: they name the
# library's code, not the project's (`exec(compile(example.source, …))` in doctest.py
# had made pytest's `Expression.compile` and `Code.source` names of the query).
_STDLIB_PATH = re.compile(
    r"^<frozen [\w.]+>$|[/\\](?:lib[/\\]python\d[\d.]*|Lib)[/\\](?!site-packages|dist-packages)"
    # Go's, under GOROOT: `/usr/local/go/src/net/http/server.go`.
    r"|[/\\]src[/\\](?:archive|bufio|bytes|cmp|compress|container|context|crypto|database"
    r"|debug|embed|encoding|errors|expvar|flag|fmt|go|hash|html|image|index|internal|io|iter"
    r"|log|maps|math|mime|net|os|path|plugin|reflect|regexp|runtime|slices|sort|strconv"
    r"|strings|structs|sync|syscall|testing|text|time|unicode|unique|unsafe|vendor|weak)"
    r"[/\\][^\n]*\.go$"
)


# A frame of Node's own code (`at ModuleJob.run (node:internal/modules/esm/module_job:
# 234:25)`, `at Module._compile (internal/modules/cjs/loader.js:1105:14)`): its names
# are Node's, not the project's (`run` had pulled up zod's `$ZodIntersection`).
_NODE_FRAME = re.compile(r"^[^\S\n]*at [^\n(]*\(?(?:node:|internal/)[^\n]*$", re.M)
_NODE_FRAME_LINE = re.compile(_NODE_FRAME.pattern + r"\n?", re.M)
_FILE_URL = re.compile(r"\b(?:file|webpack(?:-internal)?):///?[^\s():]+")  # a frame's script


def _names_text(text: str) -> str:
    """`text` with the words that name nothing blanked (same length): a traceback's own
    words, the standard library's frames with their source lines, Node's and the Java
    platform's frames, a Go or JVM frame's package, and source paths with folders."""
    spans: list[tuple[int, int]] = []
    for m in _PY_FRAME.finditer(text):
        if not _STDLIB_PATH.search(m[1]) or (spans and m.start() < spans[-1][1]):
            continue  # not the library's, or on a line already blanked
        line_end = text.find("\n", m.end())
        if line_end < 0:
            spans.append((m.start(), len(text)))
            break
        spans.append((m.start(), line_end))
        start = line_end + 1
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if start < end and not text[start:end].lstrip(" \t|+").startswith("File "):
            spans.append((start, end))  # its source line
    parts: list[str] = []
    last = 0
    for start, end in spans:
        parts += [text[last:start], " " * (end - start)]
        last = end
    text = "".join([*parts, text[last:]])
    text = _GO_FRAME.sub(_go_frame_names, text)
    text = _JVM_FRAME.sub(_jvm_frame_names, _JVM_PLATFORM_FRAME.sub(_blank, text))
    for pattern in (_NODE_FRAME, _FILE_URL):
        text = pattern.sub(_blank, text)
    text = _PATH.sub(_blank_foldered_source, text)
    return _TRACEBACK_WORDS.sub(_blank, text)


# A line of code has some mark of it: a call, braces, an assignment, a statement's
# end, an arrow, a decorator, or a statement's first word. A fence's other lines of several
# words are a program's output (a log line, an HTTP response, a race report's `Previous
# write at … by goroutine 87:`), whose capitalized words name nothing.
_CODE_LINE = re.compile(
    r"\w\(|[{}=]|;[^\S\n]*$|->|^[^\S\n]*@\w|^[^\S\n]*(?:import|from|return|def|class|func|const"
    r"|let|var|if|elif|else|for|while|try|except|finally|raise|throw|with|async|await|yield"
    r"|pass|new|fn|impl|struct|type|interface|switch|case|del|assert|export|use)\b"
)


def _without_output(code: str) -> str:
    """A fence's code without the lines of output it holds (blank lines in their place:
    the same line count)."""
    return "\n".join(
        line if len(line.split()) < 2 or _CODE_LINE.search(line) else ""
        for line in code.split("\n")
    )


def _fenced_only(text: str, fences: list[re.Match[str]], names: list[str]) -> frozenset[str]:
    """The `names` not written outside `fences`, when the rest of `text` has PROSE_WORDS
    words or more."""
    if not fences:
        return frozenset()
    parts, last = [], 0
    for m in fences:
        parts.append(text[last : m.start()])
        last = m.end()
    prose = " ".join([*parts, text[last:]])
    words = set(_WORD.findall(prose))
    if len(prose.split()) < PROSE_WORDS:
        return frozenset()
    return frozenset(name for name in names if name not in words)


# A definition in the query's code: Python's, JavaScript's, Go's and Rust's functions, a class.
_DEFINED = re.compile(
    r"^[^\S\n]*(?:pub[^\S\n]+)?(?:async[^\S\n]+)?(?:def|class|function|func|fn)[^\S\n]+(\w+)",
    re.M,
)
# A Python frame's line and the source line under it: the library's code as it ran.
# (The names text has blanked its `File`.)
_FRAME_AND_SOURCE = re.compile(
    r'^[^\S\n]*(?:File[^\S\n]+)?"[^"\n]+", line \d+[^\n]*(?:\n[^\n]*)?', re.M
)


def _without_frame_sources(text: str) -> str:
    """`text` without Python frames and their source lines: `len(value)` echoed from the
    library runs no `__len__` of the user's (typer's audit)."""
    return _FRAME_AND_SOURCE.sub("", text)


def _fence_language(info: str) -> str:
    """```` ```Python title="x" ```` → `python`."""
    words = info.split()
    return words[0].lower().lstrip("{.") if words else ""


def _blank(m: re.Match[str]) -> str:
    return " " * len(m[0])


def _go_frame_names(m: re.Match[str]) -> str:
    """A Go frame with what names nothing blanked: the whole of a standard library's
    frame, and an other frame's package path and closure suffix (`github.com`, `v4`,
    `func1` are no names of the code)."""
    if _STDLIB_PATH.search(m["path"]):
        return _blank(m)
    text, start = m[0], m.start()
    for group in ("package", "closure"):
        begin, end = m.start(group) - start, m.end(group) - start
        text = text[:begin] + " " * (end - begin) + text[end:]
    return text


def _jvm_frame_names(m: re.Match[str]) -> str:
    """A JVM frame with its package blanked: `com`, `google`, `internal` name no code."""
    return m[0].replace(m[1], " " * len(m[1]), 1)


def _blank_foldered_source(m: re.Match[str]) -> str:
    """A source file's path with folders, blanked: its folders and file name name no
    code (a dependency's frame `…/site-packages/httpcore/_exceptions.py` had named
    httpx's `_exceptions.py` by its stem), and the path itself names its file."""
    return _blank(m) if "/" in m[1] and m[2].lower() in SOURCE_EXTENSIONS else m[0]


# Not inside a path, URL or dotted name (`github.com/pylint-dev/pylint`).
_HYPHENATED = re.compile(
    r"(?<![\w`'\"/.:-])(--[a-z][a-z0-9]*(?:-[a-z0-9]+)*|[a-z][a-z0-9]*(?:-[a-z0-9]+)+)"
    r"(?![\w-]|[/.:]\w)"
)
# A file's page on a code host, as issues link to the line at fault: GitHub's and
# Gitea's `…/owner/repo/blob/<ref>/path#L45`, GitLab's `…/-/blob/…`, Bitbucket's
# `…/src/<ref>/path`. `path` keeps the ref: the indexed file is the one it ends with;
# `line`, the first line the link points at.
_HOSTED_FILE = re.compile(
    r"https?://[^\s/]+/(?:[^\s/]+/){1,4}?(?:-/)?(?:blob|blame|raw|src)/(?P<path>[^\s#?)\]>\"'`]+)"
    r"(?:#L(?P<line>\d{1,7}))?"
)
_PSEUDO_FILE = re.compile(r"<[^<>]*>")
_PATH_LIKE = re.compile(r"[/\\][^/\\]*\.\w+$")  # the last slash: linear
# Double quotes pair from any length (`"a", "href", "#"` stay three strings, not
# `", "`); single quotes need three characters inside, so an apostrophe (`user's 'x'`)
# starts no string.
# An apostrophe inside a word ("isn't … there's") neither opens nor closes one; a string
# prefix (`f'…'`, `r'…'`) still opens.
# Neither crosses a code span's backtick: `''` had opened a string ending three spans on.
_QUOTED = re.compile(
    r"\"([^\"\n`]{0,200})\"|(?:(?<![A-Za-z])|(?<=(?<![A-Za-z])[frbuFRBU]))'([^'\n`]{3,200})'"
    r"(?![A-Za-z])"
)
MIN_QUOTED = 3
PROSE_WORDS = 15  # a text around its fences of this many words tells what it is about
# An error line: `ValueError: …`, or a class of an `exceptions`/`errors`/`exc` module
# whatever its name (`requests.exceptions.InvalidURL: …`, as a traceback ends), alone or
# as the comment ending a line of code (`d["x"]  # KeyError: 'x'`).
_ERROR = re.compile(
    r"^(?:[^\n#]*?(?:#|//)|Unhandled exception\.)?[^\S\n]*"
    r"((?:[\w.]*(?:Error|Exception|Warning|Exit|Interrupt))"
    r"|[\w.]*\.(?:exceptions?|errors?|exc)\.[A-Z]\w*|error(?:\[E\d{4}\])?|Error|FATAL|fatal)"
    r"\s*:\s*(\S(?:.*\S)?)\s*$",
    re.M,
)
# Ruby's uncaught exception: `lib/rack/lint.rb:66:in 'response': undefined method 'call' for
# nil (NoMethodError)`, the class last, in parentheses.
_RUBY_ERROR = re.compile(
    r"^[^\S\n]*\S+\.rb:\d+:in [`'][^`'\n]+': (\S[^\n]*?) \(((?:[A-Z]\w*::)*[A-Z]\w*)\)[^\S\n]*$",
    re.M,
)
# A compiler's coded error: TypeScript's `src/x.ts(12,5): error TS2554: …` or
# `src/x.ts:12:5 - error TS2554: …`, C#'s `Program.cs(12,10): error CS1739: …`, MSBuild's.
_CODED_ERROR = re.compile(
    r"^[^\S\n]*\S+?(?:\(\d+,\d+\):|:\d+:\d+ -)[^\S\n]+(error [A-Z]{2,3}\d{3,5}):"
    r"[^\S\n]*(\S(?:[^\n]*\S)?)[^\S\n]*$",
    re.M,
)
# The line a Python traceback ends in, whatever its class's name (`httpx.InvalidURL: …`,
# `django.core.exceptions.FieldError: …`): right after a frame and its source lines.
_RAISED = re.compile(
    r'^[^\S\n]+File "[^"\n]+", line \d+[^\n]*\n(?:[^\S\n]+[^\n]*\n){0,4}'
    r"((?:[A-Za-z_]\w*\.)*[A-Z]\w*):[^\S\n]+(\S(?:[^\n]*\S)?)[^\S\n]*$",
    re.M,
)
# A warning or error a logger printed, after its time stamp: `WARNING
# django.security.DisallowedModelAdminLookup: Filtering by … not allowed`, `ERROR:root:…`.
_LOGGED = re.compile(
    r"^[^\S\n]*(?:[\d:,.T/+-]+[^\S\n]+)*\[?(?:WARNING|WARN|ERROR|CRITICAL|FATAL)\]?"
    r"(?:[^\S\n]+|:)([A-Za-z_][\w.]*):[^\S\n]*(\S(?:[^\n]*\S)?)[^\S\n]*$",
    re.M,
)
# The gutter of an exception group's traceback (Python 3.11, asyncio's and anyio's task
# groups): `  | ValueError: bad` under `  +-+---- 1 ----`.
_GROUP_GUTTER = re.compile(r"^(?:[^\S\n]*\|(?:[^\S\n]|$))+", re.M)
# Python's hint after a misspelt name (`… has no attribute 'nq'. Did you mean: 'ne'?`).
_DID_YOU_MEAN = re.compile(r"\.?[^\S\n]*Did you mean:? [^\n]*\?$")
# An HTTP header or a media type in backticks is protocol text, not code:
# `If-None-Match: W/"…"`, `multipart/form-data` divide nothing and name no `Match`.
_PROTOCOL_TEXT = re.compile(
    r"(?<![\w-])(?:[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+:|"
    r"(?:text|application|multipart|image|audio|video|font|message|model)/[\w.+-]+(?:;|$))",
    re.I,
)
# Rust's compiler: `error[E0277]: …` over `  --> src/main.rs:7:32`.
_RUSTC = re.compile(r"^(?:error|warning)\[E\d{4}\]:|^[^\S\n]*--> \S+\.rs:\d+:\d+", re.M)
# Go's error lines: a panic (`panic: msg [recovered]`), the runtime's `fatal error: msg`,
# and a panic net/http recovered (`… http: panic serving 10.0.0.1:5123: msg`, after a
# logger's prefix).
_GO_ERROR = re.compile(
    r"^[^\S\n]*(?:(panic|fatal error)|[^\n]*?\bhttp: (panic) serving \S+):[^\S\n]+"
    r"(\S(?:[^\n]*?\S)?)(?:[^\S\n]+\[recovered[^\]\n]*\])?[^\S\n]*$",
    re.M,
)
_IMPORT = re.compile(
    r"^[^\S\n]*(?:>>> )?from\s+[\w.]+\s+import\s+([\w,()]+(?:[^\S\n]+[\w,()]+)*)[^\S\n]*$", re.M
)
# A capitalized word that prose calls a class, a model, a component…: "where is the Check
# model defined", "the Sponge class", "class Check". Alone in a sentence it is too often
# English to count.
_KINDS = (
    r"(?:model|class|struct|interface|enum|trait|type|component|controller|service|module"
    r"|mixin|concern|protocol|job|worker|serializer|form|view|viewset|record|entity"
    r"|schema|object|middleware|handler|manager|factory|exception|decorator)s?"
)
_KIND_NAMED = re.compile(
    rf"(?<![\w.`])(?P<before>[A-Z][A-Za-z0-9]*)[^\S\n]+{_KINDS}\b"
    rf"|\b{_KINDS}[^\S\n]+(?P<after>[A-Z][A-Za-z0-9]*)(?![\w.`])"
)
# A lower-case word that prose calls a function or helper: "the cn class-name helper",
# "the slugify function". Lower-case words are mostly English, so only right after "the"
# and before such a kind (a hyphenated word may come between), and not a word that
# describes the function rather than names it ("the same function").
_FUNCTION_KINDS = (
    r"(?:function|helper|method|hook|util|utility|decorator|callback|fixture|macro|filter"
    r"|validator)s?"
)
_LOWER_NAMED = re.compile(
    rf"\bthe[^\S\n]+(?P<name>[a-z_][a-z0-9_]*)[^\S\n]+(?:[a-z]+-[a-z-]+[^\S\n]+)?"
    rf"{_FUNCTION_KINDS}\b"
)
_DESCRIBING_TEXT = (
    "same following new old given other above below previous next original current "
    "corresponding relevant appropriate internal private public default actual real right "
    "wrong first last second whole entire specific particular generic custom existing "
    "underlying parent child base top outer inner nested async sync static helper utility "
    "wrapper this that each every any some its their our my your one only "
    "user built"
)
_DESCRIBING = frozenset(_DESCRIBING_TEXT.split())
_EXCEPTION_NAME = re.compile(r"\b([A-Z]\w*(?:Error|Exception|Warning))\b")
_INNER_CAPITAL = re.compile(r"[a-z0-9][A-Z]|[A-Z]{2}[a-z]")
# Words that read as code by shape but are English or notation in issue text.
_NOT_IDENTIFIERS = frozenset({"e.g", "i.e", "etc", "vs", "http", "https", "www"})
# JavaScript's built-in objects: `Object.keys(o)` names no `keys` of the repository
# (fastify's `lib/symbols.js::keys` came first), `console.log` no `log`.
_JS_GLOBALS_TEXT = (
    "Object Array JSON Math Reflect Number String Date Symbol Intl Buffer console process"
    " globalThis window document navigator"
)
_JS_GLOBALS = frozenset(_JS_GLOBALS_TEXT.split())
# Capitalized words of code spans that are prompts, keywords or prose, not names.
_NOT_NAMES_TEXT = (
    "In Out True False None Traceback The This That It If In Is No Not Note See So We I A An "
    "And Or But For From Import Python Type Error Warning Expected Actual Output Input Result "
    "Returns Example Examples Yes"
)
_NOT_NAMES = frozenset(_NOT_NAMES_TEXT.split())
# Words in backticks that are no names: constants, the receiver, Python's keywords.
_NOT_BACKTICKED = frozenset(
    ["True", "False", "None", "true", "false", "null", "nil", "undefined", "self", "this", "cls"]
) | frozenset(keyword.kwlist)


@dataclass(frozen=True, slots=True)
class Frame:
    """One stack-trace frame: a file, a line and (when given) the function."""

    path: str
    line: int
    function: str | None


@dataclass(slots=True)
class ParsedQuery:
    text: str
    terms: list[str] = field(default_factory=list)
    identifiers: list[str] = field(default_factory=list)
    dotted: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    frames: list[Frame] = field(default_factory=list)
    quoted: list[str] = field(default_factory=list)
    literals: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    # Lines a code host's link points at, (path as linked, line): `…/blob/main/x.py#L45`.
    anchors: list[tuple[str, int]] = field(default_factory=list)
    python_frames: int = 0  # the first frames, Python's, whose innermost frame is the last
    cause_frames: int = 0  # of those, those before a chain's "direct cause" separator
    wants_tests: bool = False  # a short question asking for tests (`asks_for_tests`)
    wants_callers: bool = False  # a short question asking what uses a name (`asks_for_callers`)
    special: list[str] = field(default_factory=list)  # special methods its code runs (`__eq__`)
    # Names written only inside fenced code (a reproducing snippet's API), when the text
    # around the fences has words of its own.
    fenced_only: frozenset[str] = frozenset()
    # Names the query's code defines (`def main():` in a reproducing script): its own.
    defined: frozenset[str] = frozenset()
    # Names written only in its stack-trace frames: a frame names its own file's function.
    framed_only: frozenset[str] = frozenset()

    @property
    def quoted_messages(self) -> list[str]:
        """Quoted phrases of MESSAGE_WORDS words or more: a message the program prints,
        pasted as it appears (`"can't find session"`), with no `Error:` before it. Not in
        a traceback or beside an error line, whose messages say where they come from: a
        quote inside one (`Sympify of expression 'could not parse …'`) had put the
        parser's file above the printer a SymPy issue was about."""
        if self.frames or self.errors:
            return []
        return [q for q in self.quoted if len(q.split()) >= MESSAGE_WORDS]

    @property
    def messages(self) -> list[str]:
        """The texts of the error messages and the quoted messages, to find where the
        code holds them, one space between words."""
        texts = [e.partition(": ")[2] for e in self.errors] + self.quoted_messages
        return [" ".join(text.split()) for text in texts]

    @property
    def names(self) -> list[str]:
        """Identifiers and the last part of each dotted name, deduplicated in order."""
        seen: dict[str, None] = {}
        for name in self.identifiers:
            seen.setdefault(name, None)
        for dotted in self.dotted:
            seen.setdefault(dotted.rsplit(".", 1)[-1], None)
        for frame in self.frames:
            # A standard library's frame names its code (`<frozen …> in exec_module`).
            if (
                frame.function
                and frame.function.isidentifier()
                and not _STDLIB_PATH.search(frame.path)
            ):
                seen.setdefault(frame.function, None)
        return list(seen)

    def as_dict(self) -> dict[str, object]:
        return {
            "identifiers": self.identifiers,
            "dotted": self.dotted,
            "paths": self.paths,
            "frames": [
                {"path": f.path, "line": f.line, "function": f.function} for f in self.frames
            ],
            "quoted": self.quoted,
            "literals": self.literals,
            "errors": self.errors,
            "anchors": [{"path": path, "line": line} for path, line in self.anchors],
            "wants_tests": self.wants_tests,
            "wants_callers": self.wants_callers,
            "special": self.special,
        }


def _add(items: dict[str, None], value: str) -> None:
    if value:
        items.setdefault(value, None)


class _Spans:
    """Character spans (start, end), merged; `position in spans` by bisection."""

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        for start, end in sorted(spans):
            if self.ends and start <= self.ends[-1]:
                self.ends[-1] = max(self.ends[-1], end)
            else:
                self.starts.append(start)
                self.ends.append(end)

    def __contains__(self, position: int) -> bool:
        at = bisect.bisect_right(self.starts, position) - 1
        return at >= 0 and position < self.ends[at]


def _is_literal(value: str) -> bool:
    """A code span or quoted string that code may hold as a string literal: no white
    space, 3+ characters, and none of a plain word (`Symbol`, `value`: names find those),
    a traceback's pseudo file (`<stdin>`) or a path (paths find those)."""
    if len(value) < 3 or any(c.isspace() for c in value):
        return False
    if value.isidentifier() and "_" not in value.strip("_"):
        return False
    return not (_PSEUDO_FILE.fullmatch(value) or _PATH_LIKE.search(value))


def _looks_like_code(word: str) -> bool:
    core = word.strip("_")
    if not core:
        return False
    # A private name (`_dir`), not Markdown's emphasis (`_word_`).
    if "_" in core or word.startswith("__") or (word[0] == "_" and word[-1] != "_"):
        return True
    return bool(_INNER_CAPITAL.search(core))


def _spaced_call(name: str) -> bool:
    """Whether a name written with a space before its parenthesis, in prose, is called:
    prose puts a space before a remark in parentheses, code mostly does not; a stack
    frame of Node.js does (`at Layer.handleRequest (/srv/…)`), naming code."""
    parts = name.rstrip(".").split(".")  # "… from scrapy.extensions.telnet. (#6510)"
    return (len(parts) > 1 and all(map(str.isidentifier, parts))) or _looks_like_code(name)


def _called(text: str, end: int) -> bool:
    """The name ending at `end` is called (`r.json()`): no file, whatever it ends in."""
    return text.startswith("(", end)


def _clean_path(raw: str) -> str:
    path = raw.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


# V8's `Function.wrap [as get]`: the property a function was called as, and the type of
# the receiver of a plain function (`Function.`, `Object.`): its own name is `wrap`.
_V8_ALIAS = re.compile(r" ?\[as [^\]]*\]$")  # one space: `\s*` was quadratic on blanks
_V8_RECEIVER = re.compile(r"^(?:Function|Object)\.")


def _js_frame(m: re.Match[str]) -> Frame:
    func = (m[1] or "").strip() or None
    if func is not None:
        func = func.removeprefix("new ")
        func = _V8_RECEIVER.sub("", _V8_ALIAS.sub("", func)).split(" ")[-1]
    return Frame(posixpath.normpath(_clean_path(m[2])), int(m[3]), func)


def _gecko_frame(m: re.Match[str]) -> Frame:
    # `outer/inner` is `inner`, defined in `outer`; `outer/<` an anonymous function in it.
    names = [part for part in m[1].split("/") if part and not part.startswith("<")]
    function = names[-1].replace("prototype.", "") if names else None
    return Frame(posixpath.normpath(_clean_path(m[2])), int(m[3]), function or None)


def _jvm_frame(m: re.Match[str]) -> Frame:
    # `Library$Loan` is the nested `Library.Loan`; `Outer$1`, an anonymous class, is
    # looked up in `Outer`. A `$` of the file's own class is its name's (`$Gson$Types` in
    # `$Gson$Types.java`). A constructor `<init>` is the class's own name, a static
    # initializer `<clinit>` the class.
    stem = m[4].rsplit(".", 1)[0]
    own = m[2] == stem or m[2].startswith(f"{stem}$")
    top, nested = (stem, m[2][len(stem) :]) if own else ("", m[2])
    owner = ".".join(filter(None, [top, *(p for p in nested.split("$") if not p.isdigit())]))
    if m[3] == "<init>":
        function: str | None = f"{owner}.{owner.rsplit('.', 1)[-1]}"
    elif m[3] == "<clinit>":
        function = owner
    else:
        function = None if "$" in m[3] else f"{owner}.{m[3]}"  # `lambda$place$0`: no name
    return Frame(m[1].replace(".", "/") + m[4], int(m[5]), function)


def _jvm_frames(text: str) -> list[Frame]:
    """A JVM trace's frames from the failure outwards: its last cause's first."""
    starts = [0, *(m.start() for m in _JVM_CAUSE.finditer(text)), len(text)]
    blocks = [
        [_jvm_frame(m) for m in _JVM_FRAME.finditer(text, start, end)]
        for start, end in itertools.pairwise(starts)
    ]
    return [frame for block in reversed(blocks) for frame in block]


def _php_frames(text: str) -> list[Frame]:
    """PHP's frames, each named after the function the next one calls (`#1`'s callee
    holds `#0`'s line), and first where the exception was thrown (`Uncaught … in
    /app/src/x.php:87`, in `#0`'s callee). Read by its callee, `SetCookie->__construct`
    had framed the constructor for the line of `SetCookie::fromString` that calls it."""
    found = list(_PHP_FRAME.finditer(text))
    if not found:
        return []
    frames = []
    first = found[0] if found[0][1] == "0" else None
    thrown = _PHP_THROWN.search(text, 0, first.start()) if first else None
    if first and thrown and (called := _php_callee(first[4])):
        frames.append(Frame(_clean_path(thrown[1]), int(thrown[2]), called))
    for m, after in zip(found, [*found[1:], None], strict=True):
        following = after is not None and int(after[1]) == int(m[1]) + 1
        function = _php_callee(after[4]) if after is not None and following else None
        frames.append(Frame(_clean_path(m[2]), int(m[3]), function))
    return frames


def _php_callee(call: str) -> str | None:
    """`Class.method` or `function` of a PHP frame's call; None for a closure, `{main}`."""
    m = _PHP_CALLEE.match(call)
    return ".".join(filter(None, m.groups())) if m else None


def _dotnet_bare_frame(m: re.Match[str]) -> Frame:
    """A .NET frame without its file: C#'s is most often named after its type
    (`Logger.cs`), matched as a path's tail; no line."""
    outer, inner, method = m[2], m[3], m[4]
    return Frame(f"{outer}.cs", 0, f"{outer}.{inner}.{method}" if inner else f"{outer}.{method}")


def _rust_frame(m: re.Match[str]) -> Frame:
    owner = m[1].removesuffix("::").rsplit("::", 1)[-1]
    # A method is `Type::method`; a function in a module, `module::function`.
    function = f"{owner}.{m[2]}" if owner[:1].isupper() else m[2]
    return Frame(_clean_path(m[3]), int(m[4]), function)


def _go_function(receiver: str | None, name: str) -> str:
    """A Go frame's function: `Type.Method` for a method, the name for a function."""
    return f"{receiver}.{name}" if receiver else name


def _go_frames(text: str) -> list[Frame]:
    """A Go trace's frames from the failure outwards: past a `panic(` line first."""
    frames = [
        (
            m.start(),
            Frame(
                _clean_path(m["path"]),
                int(m["line"]),
                _go_function(m["pointer"] or m["value"], m["name"]),
            ),
        )
        for m in _GO_FRAME.finditer(text)
    ]
    panic = max((m.start() for m in _GO_PANIC.finditer(text)), default=-1)
    return [f for at, f in frames if at > panic] + [f for at, f in frames if at < panic]


def _cython_function(path: str, function: str | None) -> str | None:
    """A Cython frame's function without its module (`File "_sgd_fast.pyx", line 629, in
    sklearn.linear_model._sgd_fast._plain_sgd`)."""
    if function is not None and path.endswith((".pyx", ".pxi")):
        return function.rsplit(".", 1)[-1]
    return function


Reader = Callable[[str], list[Frame]]
# Each format's frame, as a frame names its function: `framed_only`.
_FRAME_PATTERNS = (
    *(_PY_FRAME, _IPY_FRAME, _IPY8_FRAME, _PYTEST_FRAME, _RICH_FRAME, _JS_FRAME, _GECKO_FRAME),
    *(
        _JVM_FRAME,
        _DOTNET_FRAME,
        _DOTNET_BARE_FRAME,
        _GO_FRAME,
        _GO_PC_FRAME,
        _RUST_FRAME,
        _RUBY_FRAME,
        _PHP_FRAME,
    ),
)
_ANY_WORD = re.compile(r"[A-Za-z_]\w*")


def _each(pattern: re.Pattern[str], read: Callable[[re.Match[str]], Frame]) -> Reader:
    """A reader of a format whose every match is a frame, in the order written."""
    return lambda text: [read(m) for m in pattern.finditer(text)]


# Each trace format's reader, in the order they are read. The first PYTHON_READERS are
# Python's: its tracebacks run from the outermost call to the failure ("most recent call
# last"); the other languages' traces from the failure outwards.
PYTHON_READERS = 5
_FRAME_READERS: tuple[Reader, ...] = (
    _each(_PY_FRAME, lambda m: Frame(_clean_path(m[1]), int(m[2]), _cython_function(m[1], m[3]))),
    _each(_IPY_FRAME, lambda m: Frame(_clean_path(m[1]), 0, m[2])),
    _each(_IPY8_FRAME, lambda m: Frame(_clean_path(m[1]), int(m[2]), m[3])),
    _each(_PYTEST_FRAME, lambda m: Frame(_clean_path(m[1]), int(m[2]), m[3])),
    _each(_RICH_FRAME, lambda m: Frame(_clean_path(m[1]), int(m[2]), m[3])),
    _each(_JS_FRAME, _js_frame),
    _each(_GECKO_FRAME, _gecko_frame),
    _jvm_frames,
    _each(_DOTNET_FRAME, lambda m: Frame(_clean_path(m[3]), int(m[4]), f"{m[1]}.{m[2]}")),
    _each(_DOTNET_BARE_FRAME, _dotnet_bare_frame),
    _go_frames,
    _each(_GO_PC_FRAME, lambda m: Frame(_clean_path(m[1]), int(m[2]), _go_function(m[3], m[4]))),
    _each(_RUST_FRAME, _rust_frame),
    # Ruby's `block in show` is `show`; `User#greet` is `User.greet`, 3.4's
    # `Rack::Utils#parse` `Rack.Utils.parse`.
    _each(
        _RUBY_FRAME,
        lambda m: Frame(
            _clean_path(m[1]), int(m[2]), m[3].split(" ")[-1].replace("#", ".").replace("::", ".")
        ),
    ),
    _php_frames,
)


# The lines an interactive Python or IPython console prints as it starts, pasted with
# a session: the interpreter's version and build, "Type "help", "copyright", … for more
# information", IPython's banner and its four help lines. They name no code of the
# project, and their words ("Interactive", "help system", "license") had put SymPy's
# `interactive/session.py` first for two issues about `apart` and `subs`.
_CONSOLE_BANNER = re.compile(
    r"^[^\S\n]*(?:"
    r"Python \d+\.\d+[\w.+]*[^\S\n]+(?:\|[^|\n]*\|[^\S\n]*)?\([^)\n]*\d{2}:\d{2}[^)\n]*\).*"
    r"|\[(?:GCC|Clang|MSC|PyPy)\b[^\]\n]*\] on \w+.*"
    r"|Type [\"'](?:help|copyright)[\"'], .*for more information.*"
    r"|IPython \d+\.\d+\S* -- An enhanced Interactive Python\..*"
    r"|(?:\?|%quickref|help|object\?)[^\S\n]+-> (?:Introduction and overview of IPython|"
    r"Quick reference|Python's own help system|Details about 'object').*"
    r")$",
    re.M,
)


# A line of a version report (`xr.show_versions()`, `sklearn.show_versions()`, an
# "Environment" list): `key: value` (after a list's bullet), a section's title, a rule;
# or a package list's (`pip freeze`, `pip list`, `conda list`): a name and its version.
_REPORT_LINE = re.compile(
    r"^[^\S\n]*(?:[-*][^\S\n]+)?(?:[\"']?[A-Za-z][\w.\-]*(?: [\w.\-]+){0,2}[\"']?[^\S\n]*:"
    r"[^\S\n]*\S.*|[A-Za-z][\w. \-]{0,30}:|INSTALLED VERSIONS|-{3,}|[{}\[\],]+"
    r"|\[(?:GCC|Clang|MSC)\b.*\])[^\S\n]*\r?$"
)
_VERSION_VALUE = re.compile(r":[^\S\n]*[\"']?(?:v?\d+\.\d+[^\s\"',]*|None|null)\b")
_PACKAGE_LINE = re.compile(
    r"^[^\S\n]*[A-Za-z][\w.\-\[\]]*(?:[^\S\n]*==[^\S\n]*v?\d+(?:\.\d+)*|[^\S\n]+v?\d+\.\d+\.\d+)"
    r"[\w.+\-]*(?:[^\S\n]+\S+){0,3}[^\S\n]*\r?$"
)
REPORT_VERSIONS = 4  # the fewest version values that make a run of such lines a report
_VERSIONS_TITLE = re.compile(r"^.{0,100}versions?\b.{0,100}$", re.I)
# An issue form's section about the environment (`### Matplotlib Version`, `### Operating
# system`, `### Installation`) and its short answer below it.
_ENVIRONMENT_SECTION = re.compile(
    r"^[^\S\n]*#{1,6}[^\S\n]*[^\n]{0,40}\b(?:[Vv]ersions?|[Oo]perating [Ss]ystem|OS|"
    r"[Ii]nstallation|[Ee]nvironment|[Pp]latform)[^\S\n]*\r?\n"
    r"(?:[^\S\n]*\r?\n)*(?:[^\S\n]*[^#\s`][^\n]{0,79}\r?\n?){1,3}(?=[^\S\n]*\r?\n|[^\S\n]*#|\Z)",
    re.M,
)


# A terminal's colour codes, whole or with their escape character lost in the copy
# (Jupyter's tracebacks pasted from a terminal: `[0;32m~/x/rolling.py[0m in [0;36m__init__`).
# The codes without their escape are read as such only in a text holding one of the
# two-number ones (`[0;32m`), which nothing else writes.
_ESCAPED_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_BARE_ANSI = re.compile(r"\[(?:\d{1,3};)*\d{1,3}m")
_BARE_ANSI_PAIR = re.compile(r"\[\d{1,3};\d{1,3}m")


def without_environment_noise(text: str) -> str:
    """`text` less what a console or an environment prints about itself: a terminal's
    colour codes; the start-up banners of Python and IPython consoles; an issue form's
    sections about versions, the operating system or the installation, with their short
    answers; and version reports (`show_versions()`, `pip freeze`: at least
    REPORT_VERSIONS lines of a run of `key: value` or package lines giving a version or
    `None`, and no fewer than half of them, with the line above it when that line is
    about versions); Node's own frames (`at ModuleJob.run (node:internal/…)`, whose
    `modules`, `esm` had put immer's package.json first). They name the packages
    installed or the runtime, not the code at fault; a configuration pasted as
    `key: value` lines stays."""
    if "\x1b" in text:
        text = _ESCAPED_ANSI.sub("", text)
    if _BARE_ANSI_PAIR.search(text, 0, 20_000):
        text = _BARE_ANSI.sub("", text)
    if "Python" in text or "->" in text:
        text = _CONSOLE_BANNER.sub("", text)
    if "#" in text:
        text = _ENVIRONMENT_SECTION.sub("", text)
    if "node:" in text or "internal/" in text:
        text = _NODE_FRAME_LINE.sub("", text)
    if text.count("\n") < REPORT_VERSIONS:
        return text
    lines = text.split("\n")
    keep = [True] * len(lines)
    start = 0
    while start < len(lines):
        if not _report_line(lines[start]):
            start += 1
            continue
        end = start
        while end < len(lines) and (_report_line(lines[end]) or not lines[end].strip()):
            end += 1
        entries = [line for line in lines[start:end] if _report_entry(line)]
        versions = sum(1 for e in entries if _VERSION_VALUE.search(e) or _PACKAGE_LINE.match(e))
        if versions >= REPORT_VERSIONS and versions * 2 >= len(entries):
            keep[start:end] = [False] * (end - start)
            # and the line introducing it: "Output of `xr.show_versions()`", "Versions"
            title = next((i for i in range(start - 1, -1, -1) if lines[i].strip()), None)
            if title is not None and _VERSIONS_TITLE.search(lines[title]):
                keep[title] = False
        start = end
    return "\n".join(line for line, kept in zip(lines, keep, strict=True) if kept)


def _report_line(line: str) -> bool:
    return bool(line.strip()) and bool(_REPORT_LINE.match(line) or _PACKAGE_LINE.match(line))


def _report_entry(line: str) -> bool:
    """A report line that gives a value: not a title (`System:`, `"idna": {`), a brace, a
    rule or a compiler."""
    text = line.strip()
    return (
        bool(text.strip("{}[],"))
        and not text.endswith((":", "{", "["))
        and not text.startswith(("---", "[", "INSTALLED"))
    )


def parse_query(text: str) -> ParsedQuery:
    q = ParsedQuery(text=text)
    q.terms = code_tokens(text)

    read_frames = [read(text) for read in _FRAME_READERS]
    q.frames = [frame for found in read_frames for frame in found]
    q.python_frames = sum(map(len, read_frames[:PYTHON_READERS]))
    caused = _CAUSED.search(text)
    q.cause_frames = (
        sum(1 for m in _PY_FRAME.finditer(text, 0, caused.start())) if caused else q.python_frames
    )
    frame_paths = dict.fromkeys(f.path for f in q.frames)  # in the traceback's order
    # Ordered sets: a pasted log can hold thousands of distinct names.
    paths: dict[str, None] = {}
    dotted_names: dict[str, None] = {}
    identifiers: dict[str, None] = {}
    quoted: dict[str, None] = {}
    literals: dict[str, None] = {}
    errors: dict[str, None] = {}
    anchors: dict[tuple[str, int], None] = {}  # lines a code host's link or a location points at

    framed = {(f.path, f.line) for f in q.frames}
    for m in _PATH.finditer(text):
        path, ext = _clean_path(m.group(1)), m.group(2).lower()
        if ext not in SOURCE_EXTENSIONS:
            continue
        located = _LINE_AFTER.match(text, m.end())
        if located and not _ENTRY_FILE.fullmatch(path.removeprefix("./")):
            line = int(located[1] or located[2] or located[3])
            if (path, line) not in framed:
                anchors[(path, line)] = None
        if _called(text, m.end()):
            continue
        if "/" not in path and (path.count(".") > 1 or m.group(2) in ("C", "H")):
            continue  # a dotted name that happens to end in .py-like text, a field `sub.C`
        if path not in frame_paths:
            _add(paths, path)
    for m in _HOSTED_FILE.finditer(text):
        path = m.group("path")
        if path.rpartition(".")[2].lower() in SOURCE_EXTENSIONS:
            _add(paths, path)  # the branch or commit before it: matched as a path's tail
            if m.group("line"):
                anchors[(path, int(m.group("line")))] = None
    for path in frame_paths:
        _add(paths, path)

    # A JavaScript private member is named without its `#` (`this.#retry()` names
    # `retry`; add_named finds `#retry` by it).
    named = _names_text(text).replace(".#", ".")
    inline = [m["code"] for m in _INLINE.finditer(named)]
    inline_code = [span for span in inline if not _PROTOCOL_TEXT.match(span.strip())]
    fences = list(_FENCE.finditer(named))
    code_spans = [_without_output(m["code"]) for m in fences] + inline_code
    in_code = _Spans(
        m.span("code") for pattern in (_FENCE, _INLINE) for m in pattern.finditer(named)
    )
    for m in _DOTTED.finditer(named):
        dotted = m.group(1)
        if dotted.lower() in _NOT_IDENTIFIERS:
            continue
        if dotted.rsplit(".", 1)[-1].lower() in SOURCE_EXTENSIONS and not _called(named, m.end()):
            continue  # a file name: `setup.py`
        if any(not part for part in dotted.split(".")) or dotted.split(".")[0] in _JS_GLOBALS:
            continue
        _add(dotted_names, dotted)

    for m in _SCOPED.finditer(named):
        written = m.group(1).split("::")
        parts = [p for p in written if p not in _PATH_KEYWORDS]
        if not parts or written[0] in _STANDARD_ROOTS:
            continue
        # The last name, and each type's (a capitalized module's or class's) on the way.
        for part in parts[:-1]:
            if part[0].isupper() and len(part) > 1:
                _add(identifiers, part)
        _add(identifiers, parts[-1])
        if len(parts) > 1 and parts[-2][0].isupper():
            _add(dotted_names, f"{parts[-2]}.{parts[-1]}")  # `Map::new`: the method `Map.new`

    for m in _CALL.finditer(named):
        if m.start() not in in_code:
            if _PLURAL.match(named, m.end()):
                continue  # "followed by whitespace(s)" names no `whitespace`
            if m.group(0)[-2].isspace() and not _spaced_call(m.group(1)):
                continue  # "validation (#7280)", "Traceback (most recent call last)"
        *receivers, called = m.group(1).split(".")
        if receivers[:1] and receivers[0] in _JS_GLOBALS:
            continue
        for part in [*(r for r in receivers if len(r) > 1), called]:  # no `e` of `e.Use(`
            if part.isidentifier() and part.lower() not in _NOT_IDENTIFIERS:
                _add(identifiers, part)
    for m in _WORD.finditer(named):
        if _looks_like_code(m.group(1)):
            _add(identifiers, m.group(1))
    for m in _KIND_NAMED.finditer(named):
        word = m.group("before") or m.group("after")
        if word not in _NOT_NAMES:
            _add(identifiers, word)
    for m in _LOWER_NAMED.finditer(named):
        if m.group("name") not in _DESCRIBING:
            _add(identifiers, m.group("name"))
    # A query of one word is a name whatever its shape: `trigsimp` looked for alone means
    # the function, where in a sentence it might be prose.
    alone = text.strip()
    if alone.isidentifier() and alone.lower() not in _NOT_IDENTIFIERS:
        _add(identifiers, alone)
    # A name alone in backticks is code whatever its shape: `display`, `Input`.
    for span in inline:
        word = span.strip()
        if len(word) >= 3 and word.isidentifier() and word not in _NOT_BACKTICKED:
            _add(identifiers, word)
    for span in code_spans:
        for m in _WORD.finditer(span):
            word = m.group(1)
            # In code a capitalized word is most often a class; lower-case words are too
            # often prose or locals (`x`, `result`) to count as names unless called.
            if (
                len(word) > 1
                and word[0].isupper()
                and word not in _NOT_NAMES
                and word not in _JS_GLOBALS
            ):
                _add(identifiers, word)
    for m in _IMPORT.finditer(text):
        for name in re.split(r"[\s,()]+", m.group(1)):
            if name.isidentifier() and name not in ("as", "import"):
                _add(identifiers, name)
    for dotted in dotted_names:
        for part in dotted.split("."):
            if _looks_like_code(part):
                _add(identifiers, part)
    for m in _EXCEPTION_NAME.finditer(text):
        _add(identifiers, m.group(1))

    # A Ruby frame's label is quoted (3.4: `in 'Array#each'`): a function, no message.
    for m in _QUOTED.finditer(_RUBY_FRAME.sub(_blank, text)):
        value = (m.group(1) or m.group(2) or "").strip()
        if len(value) >= MIN_QUOTED:
            _add(quoted, value)
    for value in [*(span.strip() for span in inline), *quoted]:
        if _is_literal(value):
            _add(literals, value)
    for m in _HYPHENATED.finditer(text):
        _add(literals, m.group(1))
    # An error line stands alone, or is quoted as code in a sentence; in an exception
    # group's traceback, behind its `|` gutter.
    ungrouped = _GROUP_GUTTER.sub("", text)
    for m in [
        *_ERROR.finditer(ungrouped),
        *filter(None, map(_ERROR.fullmatch, inline)),
        *_RAISED.finditer(ungrouped),
        *_LOGGED.finditer(text),
        *_CODED_ERROR.finditer(text),
    ]:
        _add(errors, f"{m.group(1)}: {_DID_YOU_MEAN.sub('', m.group(2))}")
    for m in _RUBY_ERROR.finditer(text):
        _add(errors, f"{m.group(2)}: {m.group(1)}")
    for m in _GO_ERROR.finditer(text):
        _add(errors, f"{m.group(1) or m.group(2)}: {m.group(3)}")
    q.paths, q.dotted, q.identifiers = list(paths), list(dotted_names), list(identifiers)
    q.quoted, q.literals, q.errors = list(quoted), list(literals), list(errors)
    q.anchors = list(anchors)
    # Python's special methods, unless the code is another language's: a Go trace's
    # `+0x9c` adds nothing, a ```js fence's `a/b` divides nothing, nor does any code of a
    # query whose fences are labelled with other languages only, or that quotes Rust's
    # compiler (its `|` gutter had run `__or__`).
    labelled = {_fence_language(m["info"]) for m in fences} - {""}
    other_language = bool(labelled) and not labelled & _PYTHON_FENCES
    if (not q.frames or q.python_frames) and not other_language and not _RUSTC.search(text):
        python = [m["code"] for m in fences if _fence_language(m["info"]) in _PYTHON_FENCES]
        code = _without_frame_sources("\n".join([*python, *inline_code]))
        q.special = special_methods(code, _without_frame_sources(named))
    q.fenced_only = _fenced_only(named, fences, q.names)
    if q.frames:
        unframed = text
        for pattern in _FRAME_PATTERNS:
            unframed = pattern.sub(" ", unframed)
        outside = set(_ANY_WORD.findall(unframed))
        q.framed_only = frozenset(name for name in q.names if name not in outside)
    q.defined = frozenset(m.group(1) for span in code_spans for m in _DEFINED.finditer(span))
    q.wants_tests = not q.frames and not q.errors and asks_for_tests(text)
    q.wants_callers = not q.frames and asks_for_callers(text)
    if q.wants_callers:
        for m in _CALLED.finditer(text):
            name = (m.group("after") or m.group("before")).rstrip(".")
            found = q.dotted if "." in name else q.identifiers
            if name.lower() not in _NOT_CALLED and name not in found:
                found.append(name)
    return q


# A question about tests: "unit tests for creating an order", "where is toggleFavorite
# tested", "which tests cover smart playlist rules". Test code weighs −1 otherwise, and
# eShop's and koel's such questions had no test in their top 10.
_ASKS_FOR_TESTS = re.compile(
    r"\b(?:unit|integration|e2e|end-to-end|functional|regression|snapshot)[\s-]+tests?\b"
    r"|\btests?\s+(?:for|of|that|which|covering|cover|exercising)\b"
    r"|\b(?:which|what|where\s+are(?:\s+the)?|find(?:\s+the)?|show(?:\s+me)?(?:\s+the)?"
    r"|list(?:\s+the)?|any)\s+tests?\b"
    r"|\btested\b|\btest\s+(?:cases?|suites?|coverage)\b|\bspecs?\s+(?:for|of)\b",
    re.IGNORECASE,
)
# A report of failing tests is about the code that fails them.
_FAILURE = re.compile(r"\b(?:fail\w*|error\w*|broken|crash\w*|flaky)\b", re.IGNORECASE)
MAX_TEST_QUESTION_WORDS = 25


def asks_for_tests(text: str) -> bool:
    """Whether a short question asks for tests rather than the code they test."""
    if len(text.split(None, MAX_TEST_QUESTION_WORDS)) > MAX_TEST_QUESTION_WORDS or _FAILURE.search(
        text
    ):
        return False
    return _ASKS_FOR_TESTS.search(text) is not None


# A question about what uses a name: "what calls Vote.cast", "which code calls it",
# "where is NotifyCommentJob enqueued", "callers of verify_token". Its answer is the
# callers, which search had never returned: only the definition matched the words.
_USES = r"(?:calls|uses|invokes|enqueues|instantiates|references|triggers|dispatches|raises)"
_USED = r"(?:called|used|invoked|enqueued|instantiated|referenced|triggered|dispatched|raised)"
_USERS_OF = r"(?:callers?|usages?|call\s+sites?)\s+of"
_ASKS_FOR_CALLERS = re.compile(
    rf"\b(?:who|what|which(?:\s+\w+){{0,2}})\s+{_USES}\b"
    rf"|\bwhere\s+(?:is|are|does|do)\b(?:(?!\b(?:defined|declared|implemented)\b)[^?.!\n]){{0,80}}?"
    rf"\b{_USED}\b|\b{_USERS_OF}\b",
    re.IGNORECASE,
)
MAX_CALLER_QUESTION_WORDS = 25
# What such a question asks about, which it need not write as code: "what calls
# sympify", "callers of parse", "where is verify_token used".
_CALLED = re.compile(
    rf"\b(?:{_USES}|{_USERS_OF})\s+(?:the\s+)?(?P<after>[A-Za-z_][\w.]*)"
    rf"|\bwhere\s+(?:is|are|does|do)\s+(?:the\s+)?(?P<before>[A-Za-z_][\w.]*)\s+(?:\w+\s+)?"
    rf"{_USED}\b",
    re.IGNORECASE,
)
_NOT_CALLED_TEXT = (
    "it this that them these those its a an any some each every function method class "
    "code file module variable constant"
)
_NOT_CALLED = frozenset(_NOT_CALLED_TEXT.split())


def asks_for_callers(text: str) -> bool:
    """Whether a short question asks what calls or uses a name, not where it is."""
    if len(text.split(None, MAX_CALLER_QUESTION_WORDS)) > MAX_CALLER_QUESTION_WORDS:
        return False
    return _ASKS_FOR_CALLERS.search(text) is not None


MESSAGE_RUN = 4  # words of an error message in a row that identify where it is raised
MESSAGE_WORDS = 3  # the fewest words of a message that place it


def message_phrases(messages: list[str]) -> list[str]:
    """Runs of MESSAGE_RUN words of each message, to find the code that raises or prints
    it. A message is mostly a template filled in (`Velocity of point Q has not been
    defined in ReferenceFrame A` from `'Velocity of point %s has not been defined in
    ReferenceFrame %s'`), so any run in a row identifies it; a shorter message of
    MESSAGE_WORDS words or more counts whole."""
    phrases: dict[str, None] = {}
    for message in messages:
        words = message.split()
        if len(words) < MESSAGE_RUN:
            if len(words) >= MESSAGE_WORDS:
                _add(phrases, " ".join(words))
            continue
        for start in range(len(words) - MESSAGE_RUN + 1):
            _add(phrases, " ".join(words[start : start + MESSAGE_RUN]))
    return list(phrases)


WINDOW_WORDS = 60
WINDOW_STEP = 50
MAX_WINDOWS = 25  # the title and 24 windows (1,250 words)


def query_windows(text: str) -> list[str]:
    """The texts a query is embedded as. The model reads at most 256 word pieces, so an
    issue or a pasted traceback embedded whole is cut after its first paragraph or two;
    a long text is embedded as its first line (the title) and overlapping windows of 60
    words, and a chunk's cosine is its best window's. On the sympy dev issues this took
    dense-only file Acc@5 from 46.8 to 57.1 (windows of 120 or 200 words, or averaging
    the windows, did worse). A short query is one window: itself."""
    words = text.split()
    if len(words) <= WINDOW_WORDS:
        return [text]
    title = text.strip().splitlines()[0]
    windows = [title] if len(title.split()) < WINDOW_WORDS else []
    for start in range(0, len(words) - WINDOW_WORDS // 5, WINDOW_STEP):
        windows.append(" ".join(words[start : start + WINDOW_WORDS]))
        if len(windows) >= MAX_WINDOWS:
            break
    return windows


def module_path_candidates(dotted: str) -> list[str]:
    """File paths a dotted module name may live at: `a.b.c` → `a/b/c.py`, `a/b/c/__init__.py`,
    and, for a qualified name inside a module, the prefixes (`a/b.py` for `a.b.C`)."""
    parts = dotted.split(".")
    out: list[str] = []
    for end in range(len(parts), 1, -1):
        stem = "/".join(parts[:end])
        out.append(f"{stem}.py")
        out.append(f"{stem}/__init__.py")
    return out
