"""Proposing memories from a finished agent session: pure logic, no storage.

`read_transcript` turns a session log into user and assistant turns. Three JSONL shapes
are read, each line on its own, so one file may even mix them:

* Claude Code sessions (`~/.claude/projects/<dir>/<session>.jsonl`, the hooks'
  `transcript_path`): entries of type `user`/`assistant` whose `message.content` is a
  string or a list of blocks. Only `text` blocks count (not tool_use, tool_result,
  thinking, image). Entries of other types (summary, system, file-history-snapshot, …)
  and meta, sidechain (subagent), compaction-summary and API-error entries are skipped.
* OpenCode messages as its SDK returns them, `{"info": {"role", …}, "parts": [...]}`:
  only `text` parts that are neither synthetic nor ignored; compaction summaries are
  skipped.
* generic chat lines, `{"role", "content"}`, content a string or a list of text blocks.

In every shape the harness's own markup (`<system-reminder>`, slash-command echoes, local
command output, "[Request interrupted by user]") is removed, and turns left empty are
dropped.

`extract_rules` proposes memories by marker phrases ("we decided", "the fix was",
"by convention", …) found in the turns' prose, after code blocks, stack traces, log lines
and tool output are removed. It keeps the sentence with the marker (and the next one when
that gives the reason, "Because …") and drops questions, first-person plans ("I'll run
the tests"), hedged guesses, statements shorter than `min_words` words and anything that
holds a secret. A bare "must" is noisy, so it counts only when its subject is a thing
("The API must …"), not a person ("I must check …").

`capture_prompt` and `parse_proposals` do the same with a model the caller runs: the
first builds the request, the second reads the answer, tolerant of code fences and prose.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from codecompass.models import MEMORY_TYPES, MemoryType
from codecompass.security.secrets import redact_secrets

Role = Literal["user", "assistant"]

MAX_TAGS = 5
# A "sentence" longer than this is a run-on block (a pasted paragraph without stops), not
# a statement worth keeping.
MAX_WORDS = 80
LLM_TURN = -1  # `Proposal.turn` of a model's proposal: the model does not say which turn


@dataclass(frozen=True, slots=True)
class Turn:
    """The prose of one user or assistant message; `index` is its place among the turns."""

    role: Role
    text: str
    index: int


@dataclass(frozen=True, slots=True)
class Proposal:
    """A memory proposed from a transcript. `reason` says why: "rules: <type> marker
    '<marker>'" or "llm"; `turn` is the index of the turn it came from (`LLM_TURN` for a
    model's proposal)."""

    type: MemoryType
    content: str
    tags: tuple[str, ...]
    reason: str
    turn: int


# --- reading transcripts --------------------------------------------------------------

_ROLES: frozenset[str] = frozenset({"user", "assistant"})
# Claude Code entries that are not the conversation: harness-injected messages, subagent
# turns, the summary written at compaction (a restatement), synthetic API errors.
_CLAUDE_SKIP_FLAGS = (
    "isMeta",
    "isSidechain",
    "isCompactSummary",
    "isVisibleInTranscriptOnly",
    "isApiErrorMessage",
)
_HARNESS_TAGS = re.compile(
    r"<(system-reminder|command-name|command-message|command-args|local-command-stdout"
    r"|local-command-stderr|local-command-caveat|bash-input|bash-stdout|bash-stderr"
    r"|task-notification|user-prompt-submit-hook)>.*?</\1>",
    re.DOTALL,
)
_INTERRUPTED = "[Request interrupted by user"


def read_transcript(lines: Iterable[str]) -> list[Turn]:
    """The user and assistant turns of a JSONL transcript (see the module docstring).

    Blank lines are skipped; a line that is not a JSON object raises `ValueError` naming
    its (1-based) line number. A transcript without turns gives [].
    """
    turns: list[Turn] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"transcript line {number} is not valid JSON: {exc.msg} (column {exc.colno})"
            ) from None
        if not isinstance(entry, dict):
            raise ValueError(f"transcript line {number} is not a JSON object")
        message = _message(entry)
        if message is None:
            continue
        role, text = message
        text = _HARNESS_TAGS.sub("", text).strip()
        if text and not text.startswith(_INTERRUPTED):
            turns.append(Turn(role, text, len(turns)))
    return turns


def _message(entry: dict[str, Any]) -> tuple[Role, str] | None:
    message = entry.get("message")
    if isinstance(message, dict) and entry.get("type") in _ROLES:  # Claude Code
        if any(entry.get(flag) for flag in _CLAUDE_SKIP_FLAGS):
            return None
        return _role_text(message.get("role", entry["type"]), message.get("content"))
    info, parts = entry.get("info"), entry.get("parts")
    if isinstance(info, dict) and isinstance(parts, list):  # OpenCode
        if info.get("role") == "assistant" and info.get("summary") is True:
            return None
        shown = [
            part
            for part in parts
            if not (isinstance(part, dict) and (part.get("synthetic") or part.get("ignored")))
        ]
        return _role_text(info.get("role"), shown)
    if "role" in entry:  # generic chat
        return _role_text(entry.get("role"), entry.get("content"))
    return None


def _role_text(role: object, content: object) -> tuple[Role, str] | None:
    if role == "user":
        return "user", _content_text(content)
    if role == "assistant":
        return "assistant", _content_text(content)
    return None


def _content_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = [
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]
    return "\n\n".join(texts)


# --- rule-based extraction -------------------------------------------------------------

_Marker = tuple[MemoryType, str, re.Pattern[str]]


def _markers(*specs: tuple[MemoryType, str, str]) -> tuple[_Marker, ...]:
    return tuple((kind, name, re.compile(pattern, re.IGNORECASE)) for kind, name, pattern in specs)


# In order of precedence: the first marker a sentence has decides its type. Apostrophes
# are matched after curly ones are made straight.
_MARKERS = _markers(
    ("decision", "we decided", r"\bwe(?: have|'ve)? decided\b"),
    ("decision", "decision:", r"\bdecision:"),
    ("decision", "let's go with", r"\blet's go with\b"),
    ("decision", "we'll use", r"\bwe(?:'ll| will) use\b"),
    ("decision", "we chose ... over", r"\bwe (?:chose|picked|went with)\b.+\bover\b"),
    ("decision", "going forward", r"\bgoing forward\b"),
    ("decision", "from now on", r"\bfrom now on\b"),
    ("error", "the fix was", r"\bthe fix (?:was|is)\b"),
    ("error", "fixed by", r"\bfixed by\b"),
    ("error", "root cause", r"\broot cause\b"),
    ("error", "the bug was", r"\bthe (?:bug|issue|problem) was\b"),
    ("error", "caused by ... fixed", r"\bcaused by\b.+\bfix(?:ed|es)?\b"),
    ("pattern", "convention:", r"\bconvention:"),
    ("pattern", "by convention", r"\bby convention\b"),
    ("pattern", "we always", r"\bwe always\b"),
    ("pattern", "the pattern here is", r"\bthe pattern (?:here )?is\b"),
    ("context", "the stack is", r"\b(?:the|our) stack is\b"),
    ("context", "we're on", r"\bwe(?:'re| are) on [a-z][\w.+#-]*(?: [a-z][\w.+#-]*)? v?\d"),
    (
        "context",
        "this project uses",
        r"\b(?:this|the|our) (?:project|repo|repository|codebase|service|app) uses\b",
    ),
    ("spec", "requirement:", r"\brequirements?:"),
    ("spec", "spec:", r"\bspec:"),
    ("spec", "should always", r"\bshould always\b"),
    ("spec", "never ... in production", r"\bnever\b.+\bin production\b"),
)
# "must" is a spec only with a thing for its subject ("The API must ..."), so no person
# among the three words before it; "must have" is a guess about the past.
_MUST = re.compile(r"\b(must(?:n't| not| never)?)\b(?! have\b|'ve\b)", re.IGNORECASE)
_PERSONS = frozenset({"i", "you", "we", "they", "he", "she", "one", "u"})
_LABELS: dict[str, MemoryType] = {
    "decision": "decision",
    "requirement": "spec",
    "requirements": "spec",
    "spec": "spec",
    "convention": "pattern",
    "pattern": "pattern",
    "context": "context",
}
_LABEL = re.compile(r"^([a-z]+)\s*:\s*", re.IGNORECASE)
_FILLER = re.compile(r"^(?:also|and|so|ok(?:ay)?|alright|anyway|noted)\b,?\s+", re.IGNORECASE)

_PLAN = re.compile(
    r"^(?:(?:ok(?:ay)?|alright|so|now|next|then|first|great|sure|good|right)\b[,!.]?\s+)*"
    r"(?:i(?:'ll|'m going to|'m gonna|'m about to| will| am going to| need to| must| should"
    r"| want to|'d like to| have to)\b|let me\b|let's (?!go with\b)|now i\b"
    r"|we(?:'ll| will)? need to\b|we(?:'ll| will) have to\b)",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|possibly|probably|i think|i suspect|i guess|not sure|might be"
    r"|could be)\b",
    re.IGNORECASE,
)
_BECAUSE = re.compile(
    r"^(?:because|this is because|that's because|that is because|the reason is)\b",
    re.IGNORECASE,
)

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+")
_QUOTE = re.compile(r"^[ \t]*>[ \t]?")
_INDENTED = re.compile(r"^(?: {4}|\t)")
_NOISE_LINES = tuple(
    re.compile(pattern)
    for pattern in (
        r"^\s*\|",  # table row
        r"^\s*Traceback \(most recent call last\)",
        r'^\s*File "[^"]+", line \d+',
        r"^\s*at [\w.$<>\[\]/]+ ?\(.*\)\s*$",  # JS / Java stack frame
        r"^\s*at .+:\d+:\d+\)?\s*$",
        r"^\s*[A-Za-z_][\w.]*(?:Error|Exception|Warning|Interrupt|Exit)(?::\s|$)",
        r"^\s*\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}",  # timestamped log line
        r"^\s*\[?\d{2}:\d{2}:\d{2}\b",
        r"^\s*\[?(?:DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|CRITICAL|FATAL|TRACE)\]?(?::|\s)",
        r"^\s*(?:\$|%|>>>|\.\.\.|PS [^>]*>)\s",  # shell / REPL prompt
        r"^\s*(?:={3,}|-{3,}|\*{3,}|_{3,})",  # rules, pytest banners
        r"^\s*(?:PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b",
        r"^\s*[\w./\\-]+\.\w+:\d+(?::\d+)?:?\s",  # path:line: compiler / linter output
        r"^\s*\d+ (?:passed|failed|errors?|skipped)\b",
        r"^(?:@@ |diff --git |index [0-9a-f]+\.\.|\+\+\+ |--- )",
        r"^[+-](?![ \t]|$)",  # diff line
    )
)
_MIN_LETTER_SHARE = 0.5  # below this share of letters a line is output, not prose
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])\s+")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "incl.", "no.")
_EMPHASIS = re.compile(r"\*\*")
_SPACES = re.compile(r"\s+")

_BACKTICKED = re.compile(r"`([^`\n]+)`")
_TAG_SHAPE = re.compile(r"[a-z0-9_][\w.:/@+#-]{0,39}")
_WORD = re.compile(r"[A-Za-z][\w+#.-]*[\w+#]|[A-Za-z]")
_TECH = frozenset(
    {
        "alembic",
        "aws",
        "azure",
        "bun",
        "celery",
        "django",
        "docker",
        "fastapi",
        "flask",
        "gcp",
        "git",
        "github",
        "graphql",
        "grpc",
        "httpx",
        "java",
        "javascript",
        "jwt",
        "kafka",
        "kotlin",
        "kubernetes",
        "lancedb",
        "mcp",
        "mypy",
        "mysql",
        "nginx",
        "node.js",
        "nodejs",
        "npm",
        "numpy",
        "oauth",
        "onnx",
        "onnxruntime",
        "opencode",
        "pandas",
        "pip",
        "poetry",
        "postgres",
        "postgresql",
        "pydantic",
        "pytest",
        "python",
        "qdrant",
        "react",
        "redis",
        "ruff",
        "rust",
        "sqlalchemy",
        "sqlite",
        "terraform",
        "tree-sitter",
        "typescript",
        "uv",
    }
)


def extract_rules(turns: Sequence[Turn], *, min_words: int) -> list[Proposal]:
    """Memories proposed by marker phrases in the turns' prose (see the module docstring),
    in transcript order, identical ones (same type and text) once."""
    proposals: list[Proposal] = []
    seen: set[tuple[str, str]] = set()
    for turn in turns:
        for block in _prose_blocks(turn.text):
            sentences = _sentences(block)
            for i, sentence in enumerate(sentences):
                following = sentences[i + 1] if i + 1 < len(sentences) else ""
                proposal = _proposal(sentence, following, turn.index, min_words)
                if proposal is None:
                    continue
                key = (proposal.type, proposal.content.casefold())
                if key not in seen:
                    seen.add(key)
                    proposals.append(proposal)
    return proposals


def _proposal(sentence: str, following: str, turn: int, min_words: int) -> Proposal | None:
    if sentence.endswith("?") or _PLAN.match(sentence) or _HEDGE.search(sentence):
        return None
    marker = _marker(sentence)
    if marker is None:
        return None
    kind, name = marker
    content = _FILLER.sub("", sentence, count=1)
    label = _LABEL.match(content)
    if label and _LABELS.get(label.group(1).lower()) == kind:
        content = content[label.end() :]
    content = content[:1].upper() + content[1:]
    if content.endswith(":"):  # an introduction to what follows, not a statement
        return None
    if following and _BECAUSE.match(following) and not following.endswith("?"):
        content = f"{content} {following}"
    words = len(content.split())
    if words < min_words or words > MAX_WORDS or redact_secrets(content)[1]:
        return None
    return Proposal(kind, content, _tags(content), f"rules: {kind} marker '{name}'", turn)


def _marker(sentence: str) -> tuple[MemoryType, str] | None:
    for kind, name, pattern in _MARKERS:
        if pattern.search(sentence):
            return kind, name
    must = _MUST.search(sentence)
    if must is None:
        return None
    subject = [word.lower() for word in re.findall(r"[\w']+", sentence[: must.start()])]
    if not subject or _PERSONS.intersection(subject[-3:]):  # "I really must check", too
        return None
    modal = must.group(1).lower()
    return "spec", "must" if modal == "must" else "must not"


def _prose_blocks(text: str) -> list[str]:
    """Paragraphs, list items and headings of `text` as one-line blocks, without code
    blocks, stack traces, logs, tables or other machine output."""
    blocks: list[str] = []
    current: list[str] = []
    fence = ""

    def flush() -> None:
        if current:
            block = _clean(" ".join(current))
            if block:
                blocks.append(block)
            current.clear()

    for line in text.replace("\u2019", "'").splitlines():
        opening = _FENCE.match(line)
        if fence:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = ""
            continue
        if opening:
            flush()
            fence = opening.group(1)
            continue
        if not line.strip() or _is_noise(line) or (not current and _INDENTED.match(line)):
            flush()
            continue
        item = _LIST_ITEM.match(line) or _HEADING.match(line)
        if item:
            flush()
            current.append(line[item.end() :])
            if _HEADING.match(line):
                flush()
        else:
            current.append(_QUOTE.sub("", line, count=1).strip())
    flush()
    return blocks


def _is_noise(line: str) -> bool:
    if any(pattern.match(line) for pattern in _NOISE_LINES):
        return True
    visible = [c for c in line if not c.isspace()]
    letters = sum(c.isalpha() for c in visible)
    return bool(visible) and letters / len(visible) < _MIN_LETTER_SHARE


def _clean(text: str) -> str:
    return _SPACES.sub(" ", _EMPHASIS.sub("", text)).strip()


def _sentences(block: str) -> list[str]:
    code = [m.span() for m in _BACKTICKED.finditer(block)]
    pieces: list[str] = []
    start = 0
    for gap in _SENTENCE_BREAK.finditer(block):
        if not any(left < gap.start() < right for left, right in code):
            pieces.append(block[start : gap.start()])
            start = gap.end()
    pieces.append(block[start:])
    sentences: list[str] = []
    for piece in pieces:
        if sentences and (sentences[-1].lower().endswith(_ABBREVIATIONS) or piece[:1].islower()):
            sentences[-1] = f"{sentences[-1]} {piece}"
        else:
            sentences.append(piece)
    return [s for s in sentences if s]


def _tags(text: str) -> tuple[str, ...]:
    """Up to `MAX_TAGS` lower-case keywords: identifiers in backticks and known technology
    names, in the order they appear."""
    found: list[tuple[int, str]] = []
    for m in _BACKTICKED.finditer(text):
        tag = m.group(1).strip().removesuffix("()").rstrip("/").lower()
        if _TAG_SHAPE.fullmatch(tag):
            found.append((m.start(), tag))
    plain = _BACKTICKED.sub(lambda m: " " * len(m.group(0)), text)
    for m in _WORD.finditer(plain):
        word = m.group(0).lower()
        if word in _TECH:
            found.append((m.start(), word))
    tags: list[str] = []
    for _, tag in sorted(found):
        if tag not in tags:
            tags.append(tag)
    return tuple(tags[:MAX_TAGS])


# --- model-based extraction -------------------------------------------------------------

CAPTURE_SYSTEM = """\
You extract durable project memory from the transcript of a finished coding-agent session.

Answer with a JSON array and nothing else. Each element is an object:
{"type": "decision" | "pattern" | "error" | "spec" | "context", "content": "...", "tags": ["..."]}

Types:
- decision: a choice made for the project, with its reason when the transcript gives one.
- pattern: a convention the code follows or must follow.
- error: a bug that was fixed: what caused it and what fixed it.
- spec: a requirement the system must meet.
- context: a stable fact about the project: stack, versions, layout, environment.

Rules:
- Keep only facts that stay true and useful in later sessions.
- Never ephemeral progress: what was done or tried in this session, task status, next \
steps, test runs, edits in progress.
- Never secrets: no passwords, tokens, API keys, credentials in URLs, personal data.
- Each content is one or two plain sentences that make sense without the transcript; \
name the files, functions, commands or tools involved.
- tags: up to 5 lower-case keywords (technologies, identifiers).
- If nothing is worth remembering, answer [].
"""


def capture_prompt(turns: Sequence[Turn], *, max_chars: int) -> tuple[str, str]:
    """The (system, user) messages asking a model for memories from `turns`. The
    transcript, secrets redacted, is cut to its last `max_chars` characters: whole turns
    from the end, and the end of a turn when even the last one is longer."""
    if max_chars < 1:
        raise ValueError(f"max_chars must be positive, not {max_chars}")
    transcript = _transcript_tail(turns, max_chars)
    user = (
        "Transcript of the session, oldest turn first (earlier turns may be cut):\n\n"
        f"<transcript>\n{transcript}\n</transcript>\n\n"
        "Answer with the JSON array."
    )
    return CAPTURE_SYSTEM, user


def _transcript_tail(turns: Sequence[Turn], max_chars: int) -> str:
    kept: list[str] = []
    size = 0
    for turn in reversed(turns):
        label = f"{turn.role.upper()}: "
        text = label + redact_secrets(turn.text)[0]
        cost = len(text) + (2 if kept else 0)
        if size + cost <= max_chars:
            kept.append(text)
            size += cost
            continue
        if not kept:
            cut = f"{label}… "
            room = max_chars - len(cut)
            kept.append(cut + text[len(text) - room :] if room > 0 else text[-max_chars:])
        break
    return "\n\n".join(reversed(kept))


_FENCED = re.compile(r"```[\w-]*[ \t]*\n(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[\]}])")
_WRAPPER_KEYS = ("memories", "proposals", "items")
_MAX_JSON_STARTS = 200  # brackets tried per chunk: bounds the work on a garbage answer


def parse_proposals(text: str) -> list[Proposal]:
    """The memories in a model's answer to `capture_prompt`: the first JSON array of
    objects in it (inside a code fence or not, prose around it ignored, trailing commas
    forgiven; `{"memories": [...]}` and a single object are accepted too). Items of an
    unknown type, without content, or holding a secret are dropped; identical ones are
    kept once. An answer without such JSON gives []."""
    for value in _json_values(text):
        items = _items(value)
        if items is not None:
            return _llm_proposals(items)
    return []


def _json_values(text: str) -> Iterator[object]:
    decoder = json.JSONDecoder()
    for chunk in [m.group(1) for m in _FENCED.finditer(text)] + [text]:
        starts = [i for i, char in enumerate(chunk) if char in "[{"][:_MAX_JSON_STARTS]
        for start in starts:
            for source in (chunk[start:], _TRAILING_COMMA.sub(r"\1", chunk[start:])):
                try:
                    yield decoder.raw_decode(source)[0]
                    break
                except (json.JSONDecodeError, RecursionError):
                    continue


def _items(value: object) -> list[object] | None:
    if isinstance(value, dict):
        for key in _WRAPPER_KEYS:
            if isinstance(value.get(key), list):
                value = value[key]
                break
        else:
            return [value] if "type" in value and "content" in value else None
    if isinstance(value, list) and (not value or any(isinstance(v, dict) for v in value)):
        return value
    return None


def _llm_proposals(items: Iterable[object]) -> list[Proposal]:
    proposals: list[Proposal] = []
    seen: set[tuple[str, str]] = set()
    for item in items:
        if not isinstance(item, dict):
            continue
        kind = _memory_type(item.get("type"))
        content = item.get("content")
        if kind is None or not isinstance(content, str):
            continue
        content = _SPACES.sub(" ", content).strip()
        if not content or redact_secrets(content)[1]:
            continue
        key = (kind, content.casefold())
        if key in seen:
            continue
        seen.add(key)
        proposals.append(Proposal(kind, content, _llm_tags(item.get("tags")), "llm", LLM_TURN))
    return proposals


def _memory_type(value: object) -> MemoryType | None:
    if isinstance(value, str):
        name = value.strip().lower()
        for kind in MEMORY_TYPES:
            if kind == name:
                return kind
    return None


def _llm_tags(value: object) -> tuple[str, ...]:
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list):
        return ()
    tags: list[str] = []
    for tag in value:
        if isinstance(tag, str):
            tag = tag.strip().lower()
            if tag and tag not in tags:
                tags.append(tag)
    return tuple(tags[:MAX_TAGS])
