from codecompass.indexing.chunk import ChunkLimits, chunk_file
from codecompass.models import ParsedFile, Symbol


def words(texts: list[str]) -> list[int]:
    return [len(t.split()) for t in texts]


SOURCE = [
    "import os",
    "",
    "X = 1",
    "",
    "",
    "class Greeter(Base):",
    '    """Says hello."""',
    "",
    '    greeting = "hi"',
    "",
    "    def hello(self, name):",
    '        text = f"{self.greeting} {name}"',
    "        return text",
    "",
    "    def bye(self):",
    '        return "bye"',
    "",
    "",
    "def main():",
    "    def helper():",
    "        return 1",
    "    return helper()",
]


def sym(
    name: str, q: str, kind: str, start: int, end: int, header: int, parent: str | None = None
) -> Symbol:
    return Symbol(
        name=name,
        qualified_name=q,
        kind=kind,  # type: ignore[arg-type]
        start_line=start,
        end_line=end,
        header_end_line=header,
        signature=SOURCE[start - 1].strip().rstrip(":"),
        parent=parent,
    )


PARSED = ParsedFile(
    language="python",
    symbols=[
        sym("Greeter", "Greeter", "class", 6, 16, 6),
        sym("hello", "Greeter.hello", "method", 11, 13, 11, "Greeter"),
        sym("bye", "Greeter.bye", "method", 15, 16, 15, "Greeter"),
        sym("main", "main", "function", 19, 22, 19),
        sym("helper", "main.helper", "function", 20, 21, 20, "main"),
    ],
)


def test_one_chunk_per_callable_class_without_bodies_and_module_rest() -> None:
    drafts = chunk_file(SOURCE, PARSED, words, ChunkLimits())
    got = [
        (d.kind, d.symbol.qualified_name if d.symbol else None, d.start_line, d.end_line)
        for d in drafts
    ]
    assert got == [
        ("module", None, 1, 3),
        ("class", "Greeter", 6, 16),
        ("method", "Greeter.hello", 11, 13),
        ("method", "Greeter.bye", 15, 16),
        ("function", "main", 19, 22),
    ]
    by_kind = {d.kind: d for d in drafts}
    assert by_kind["class"].text == "\n".join(
        [
            "class Greeter(Base):",
            '    """Says hello."""',
            "",
            '    greeting = "hi"',
            "",
            "    def hello(self, name):",
            "        ...",
            "",
            "    def bye(self):",
            "        ...",
        ]
    )
    assert by_kind["module"].text == "import os\n...\nX = 1"
    assert "def helper" in by_kind["function"].text


def test_oversized_symbol_is_cut_into_overlapping_windows() -> None:
    body = [f"    step_{i} = compute(alpha, beta, gamma, delta)" for i in range(60)]
    lines = ["def big():", *body]
    parsed = ParsedFile("python", [Symbol("big", "big", "function", 1, 61, 1, "def big()")])
    limits = ChunkLimits(chunk_max_tokens=100, window_tokens=60, window_overlap=0.15)
    drafts = chunk_file(lines, parsed, words, limits)
    assert len(drafts) > 1
    assert all(d.symbol is not None and d.symbol.qualified_name == "big" for d in drafts)
    assert [d.part for d in drafts] == list(range(1, len(drafts) + 1))
    assert all(d.parts == len(drafts) for d in drafts)
    assert drafts[0].start_line == 1 and drafts[-1].end_line == 61
    for a, b in zip(drafts, drafts[1:], strict=False):
        overlap = a.end_line - b.start_line + 1
        assert overlap >= 1  # consecutive windows share lines
        assert overlap <= (a.end_line - a.start_line + 1) * 0.25
        assert sum(words(lines[a.start_line - 1 : a.end_line])) <= 60


def test_parse_error_and_plain_text_fall_back_to_line_windows() -> None:
    lines = [f"row {i}" for i in range(130)]
    limits = ChunkLimits(text_window_lines=60)
    for parsed in (ParsedFile("python", error="boom"), ParsedFile("text")):
        drafts = chunk_file(lines, parsed, words, limits)
        assert [(d.start_line, d.end_line) for d in drafts] == [(1, 60), (54, 113), (107, 130)]
        assert {d.kind for d in drafts} == {"text"}


def test_markdown_sections_hold_their_own_text() -> None:
    lines = ["intro", "# A", "a text", "## B", "b text", "# C", "c text"]
    parsed = ParsedFile(
        "markdown",
        [
            Symbol("A", "A", "section", 2, 5, 2, "# A"),
            Symbol("B", "A > B", "section", 4, 5, 4, "## B", parent="A"),
            Symbol("C", "C", "section", 6, 7, 6, "# C"),
        ],
    )
    drafts = chunk_file(lines, parsed, words, ChunkLimits())
    assert [(d.kind, d.start_line, d.end_line) for d in drafts] == [
        ("text", 1, 1),
        ("section", 2, 3),
        ("section", 4, 5),
        ("section", 6, 7),
    ]


def test_file_without_definitions_is_one_module_chunk() -> None:
    lines = ["import sys", "", "print(sys.argv)"]
    drafts = chunk_file(lines, ParsedFile("python"), words, ChunkLimits())
    assert [(d.kind, d.start_line, d.end_line, d.text) for d in drafts] == [
        ("module", 1, 3, "import sys\n...\nprint(sys.argv)")
    ]


def test_windows_of_an_elided_class_point_at_their_real_lines() -> None:
    lines = ["class Big:", '    """Docs."""']
    symbols = [Symbol("Big", "Big", "class", 1, 0, 1, "class Big")]
    for i in range(30):
        start = len(lines) + 1
        lines += [
            f"    def method_{i}(self, value_{i}):",
            "        same = 1",
            "        return same",
        ]
        symbols.append(
            Symbol(
                f"method_{i}",
                f"Big.method_{i}",
                "method",
                start,
                start + 2,
                start,
                f"def method_{i}(self, value_{i})",
                parent="Big",
            )
        )
    symbols[0] = Symbol("Big", "Big", "class", 1, len(lines), 1, "class Big")
    limits = ChunkLimits(chunk_max_tokens=40, window_tokens=30, window_overlap=0.15)
    drafts = [
        d
        for d in chunk_file(lines, ParsedFile("python", symbols), words, limits)
        if d.kind == "class"
    ]
    assert len(drafts) > 2
    for d in drafts:
        real = [line for line in d.text.split("\n") if line.strip() != "..."]
        assert lines[d.start_line - 1] == real[0]
        assert lines[d.end_line - 1] == real[-1]
    assert drafts[0].start_line == 1 and drafts[-1].end_line == len(lines) - 2


def test_a_long_javascript_constant_is_its_own_chunk() -> None:
    """excalidraw's `export const actionDuplicateSelection = register({…})` (100 lines of
    handlers): cut into the module's anonymous windows, it had no symbol and the symbol
    view never listed it. A short constant stays in the module chunk, and so does a long
    Python one (a table of data)."""
    table = [f"  key{i}: () => {i}," for i in range(10)]
    lines = [
        'import x from "x";', "", "const LIMIT = 3;", "",
        "export const action = register({", *table, "});", "",
        "function f() {", "}",
    ]  # fmt: skip
    symbols = [
        Symbol("LIMIT", "LIMIT", "constant", 3, 3, 3, "const LIMIT = 3"),
        Symbol("action", "action", "constant", 5, 16, 5, "export const action = register({"),
        Symbol("f", "f", "function", 18, 19, 18, "function f()"),
    ]

    def chunks(language: str) -> list[tuple[str, str | None, int, int]]:
        drafts = chunk_file(lines, ParsedFile(language, symbols), words, ChunkLimits())
        return [
            (d.kind, d.symbol.qualified_name if d.symbol else None, d.start_line, d.end_line)
            for d in drafts
        ]

    assert chunks("typescript") == [
        ("module", None, 1, 3),
        ("constant", "action", 5, 16),
        ("function", "f", 18, 19),
    ]
    assert chunks("python") == [("module", None, 1, 16), ("function", "f", 18, 19)]
