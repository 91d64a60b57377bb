"""Cut a parsed file into chunks, the searchable units.

- one chunk per function or method (a function nested in a function stays in its parent);
- a class-like chunk holds its header, doc, fields and member signatures, with member
  bodies elided (they live in the members' own chunks);
- in JavaScript and TypeScript, a top-level constant of more than `CONSTANT_CHUNK_LINES`
  lines is one chunk;
- a module chunk holds what no definition covers: imports and top-level statements;
- a document section is one chunk (its own text, without its subsections);
- any other text, or a file that failed to parse, is cut into line windows.
A chunk over `chunk_max_tokens` (the embedding model's tokenizer) is cut into windows
of `window_tokens` that overlap by `window_overlap` and keep the symbol's metadata.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from codecompass.models import ParsedFile, Symbol

TokenCounter = Callable[[Sequence[str]], list[int]]

ELISION = "..."
CONTAINER_KINDS = frozenset({"class", "interface", "struct", "trait", "enum", "type", "module"})
_CALLABLES = frozenset({"function", "method"})
# Every kind a chunk can have: a definition, a file's top level ("module"), a heading's
# section of a document, or plain text.
CHUNK_KINDS = _CALLABLES | CONTAINER_KINDS | {"constant", "section", "text"}
# In JavaScript and TypeScript code is defined in constants (`export const action =
# register({…})`, `export const Menu = styled.div`…`): one longer than this many lines is
# a chunk of its own, named; a shorter one stays in the module chunk. Elsewhere a
# module-level constant is a table of data, left in the module chunk (made chunks of their
# own, rich's colour and theme tables re-cut its module windows: one golden question
# fell from 1st to 2nd, none rose).
CONSTANT_CHUNK_LINES = 10
_CODE_IN_CONSTANTS = frozenset({"javascript", "typescript", "tsx", "vue", "svelte"})
_DOCUMENT_LANGUAGES = frozenset({"markdown", "rst"})


@dataclass(frozen=True, slots=True)
class ChunkDraft:
    kind: str  # the symbol kind, or "module" / "text"
    symbol: Symbol | None
    start_line: int
    end_line: int
    text: str  # the code as shown to people (elided member bodies marked by "...")
    part: int = 1
    parts: int = 1
    # For text with elided parts: the file line of each text line (0 for an elision mark).
    line_numbers: tuple[int, ...] | None = None
    tokens: int = 0  # of `text` in the model's tokenizer (windows: the sum of their lines')


@dataclass(frozen=True, slots=True)
class ChunkLimits:
    chunk_max_tokens: int = 384
    window_tokens: int = 256
    window_overlap: float = 0.15
    text_window_lines: int = 60


def chunk_file(
    lines: Sequence[str], parsed: ParsedFile, count_tokens: TokenCounter, limits: ChunkLimits
) -> list[ChunkDraft]:
    """Chunks of one file, in line order. `lines` are the normalized file's lines."""
    documents = parsed.language in _DOCUMENT_LANGUAGES
    if parsed.error is not None or parsed.language == "text" or (documents and not parsed.symbols):
        drafts = _line_windows(lines, 1, len(lines), None, "text", limits.text_window_lines)
    elif documents:
        drafts = _section_chunks(lines, parsed.symbols)
    else:
        drafts = _code_chunks(lines, parsed.symbols, parsed.language in _CODE_IN_CONSTANTS)
    return _split_oversized(drafts, count_tokens, limits)


def _code_chunks(
    lines: Sequence[str], symbols: Sequence[Symbol], constants: bool
) -> list[ChunkDraft]:
    """`constants`: long top-level constants are chunks of their own."""
    by_name = {s.qualified_name: s for s in symbols}

    def inside_callable(s: Symbol) -> bool:
        parent = by_name.get(s.parent) if s.parent else None
        while parent is not None:
            if parent.kind in _CALLABLES:
                return True
            parent = by_name.get(parent.parent) if parent.parent else None
        return False

    chunked = [s for s in symbols if not inside_callable(s)]
    drafts: list[ChunkDraft] = []
    for s in chunked:
        if s.kind in _CALLABLES:
            drafts.append(_span(lines, s, s.kind, s.start_line, s.end_line))
        elif s.kind in CONTAINER_KINDS:
            members = [
                m
                for m in chunked
                if m.parent == s.qualified_name and m.kind in _CALLABLES | CONTAINER_KINDS
            ]
            drafts.append(_container_chunk(lines, s, members))
        elif constants and _long_constant(s):
            drafts.append(_span(lines, s, s.kind, s.start_line, s.end_line))
    top_level = [
        s
        for s in chunked
        if s.parent is None
        and (s.kind in _CALLABLES | CONTAINER_KINDS or (constants and _long_constant(s)))
    ]
    drafts.extend(_module_chunk(lines, top_level))
    drafts.sort(key=lambda d: (d.start_line, -d.end_line))
    return drafts


def _long_constant(s: Symbol) -> bool:
    return (
        s.kind == "constant"
        and s.parent is None
        and s.end_line - s.start_line + 1 > (CONSTANT_CHUNK_LINES)
    )


def _span(lines: Sequence[str], s: Symbol | None, kind: str, start: int, end: int) -> ChunkDraft:
    return ChunkDraft(kind, s, start, end, "\n".join(lines[start - 1 : end]))


def _container_chunk(lines: Sequence[str], s: Symbol, members: Sequence[Symbol]) -> ChunkDraft:
    kept: list[int] = []  # file line numbers, 0 for an elision mark
    line_no = s.start_line
    for m in sorted(members, key=lambda m: m.start_line):
        if m.start_line < line_no or m.end_line > s.end_line:
            continue
        header_end = max(m.start_line, min(m.header_end_line, m.end_line))
        kept.extend(range(line_no, header_end + 1))
        if header_end < m.end_line:
            kept.append(-header_end)  # an elided body, indented one level below its header
        line_no = m.end_line + 1
    kept.extend(range(line_no, s.end_line + 1))
    out = [lines[n - 1] if n > 0 else _indent_of(lines[-n - 1]) + "    " + ELISION for n in kept]
    numbers = tuple(max(n, 0) for n in kept)
    return ChunkDraft(s.kind, s, s.start_line, s.end_line, "\n".join(out), line_numbers=numbers)


def _module_chunk(lines: Sequence[str], top_level: Sequence[Symbol]) -> list[ChunkDraft]:
    covered = [False] * (len(lines) + 2)
    for s in top_level:
        for n in range(s.start_line, min(s.end_line, len(lines)) + 1):
            covered[n] = True
    kept = [n for n in range(1, len(lines) + 1) if not covered[n] and lines[n - 1].strip()]
    if not kept:
        return []
    out: list[str] = []
    numbers: list[int] = []
    previous = kept[0] - 1
    for n in kept:
        if n != previous + 1 and out:
            out.append(ELISION)
            numbers.append(0)
        out.append(lines[n - 1])
        numbers.append(n)
        previous = n
    text = "\n".join(out)
    return [ChunkDraft("module", None, kept[0], kept[-1], text, line_numbers=tuple(numbers))]


def _section_chunks(lines: Sequence[str], sections: Sequence[Symbol]) -> list[ChunkDraft]:
    drafts: list[ChunkDraft] = []
    ordered = sorted(sections, key=lambda s: s.start_line)
    first = ordered[0].start_line
    if first > 1 and any(line.strip() for line in lines[: first - 1]):
        drafts.append(_span(lines, None, "text", 1, first - 1))
    for i, s in enumerate(ordered):
        end = s.end_line
        if i + 1 < len(ordered) and ordered[i + 1].start_line <= end:
            end = ordered[i + 1].start_line - 1
        if end >= s.start_line:
            drafts.append(_span(lines, s, "section", s.start_line, end))
    return drafts


def _line_windows(
    lines: Sequence[str], start: int, end: int, s: Symbol | None, kind: str, size: int
) -> list[ChunkDraft]:
    drafts: list[ChunkDraft] = []
    step = max(1, size - max(1, size // 8))
    line_no = start
    while line_no <= end:
        last = min(end, line_no + size - 1)
        text = "\n".join(lines[line_no - 1 : last])
        if text.strip():
            drafts.append(ChunkDraft(kind, s, line_no, last, text))
        if last == end:
            break
        line_no += step
    return drafts


def _split_oversized(
    drafts: list[ChunkDraft], count_tokens: TokenCounter, limits: ChunkLimits
) -> list[ChunkDraft]:
    sizes = count_tokens([d.text for d in drafts])
    out: list[ChunkDraft] = []
    for draft, size in zip(drafts, sizes, strict=True):
        if size <= limits.chunk_max_tokens or draft.end_line == draft.start_line:
            out.append(replace(draft, tokens=size))
            continue
        out.extend(_token_windows(draft, count_tokens, limits))
    return out


def _token_windows(
    draft: ChunkDraft, count_tokens: TokenCounter, limits: ChunkLimits
) -> list[ChunkDraft]:
    """Windows of whole lines of about `window_tokens`, overlapping by a share of that."""
    text_lines = draft.text.split("\n")
    numbers = draft.line_numbers or tuple(
        range(draft.start_line, draft.start_line + len(text_lines))
    )
    line_tokens = [max(1, n) for n in count_tokens(text_lines)]
    budget = limits.window_tokens
    overlap = int(budget * limits.window_overlap)
    windows: list[tuple[int, int]] = []
    i = 0
    while i < len(text_lines):
        j, used = i, 0
        while j < len(text_lines) and (used + line_tokens[j] <= budget or j == i):
            used += line_tokens[j]
            j += 1
        windows.append((i, j))
        if j >= len(text_lines):
            break
        back, carried = j, 0
        while back > i + 1 and carried + line_tokens[back - 1] <= overlap:
            back -= 1
            carried += line_tokens[back]
        i = back
    out: list[ChunkDraft] = []
    for part, (a, b) in enumerate(windows, start=1):
        real = [n for n in numbers[a:b] if n > 0] or [draft.start_line]
        out.append(
            ChunkDraft(
                draft.kind,
                draft.symbol,
                real[0],
                real[-1],
                "\n".join(text_lines[a:b]),
                part=part,
                parts=len(windows),
                tokens=sum(line_tokens[a:b]),
            )
        )
    return out


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]
