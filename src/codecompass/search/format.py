"""Snippets at three detail levels (seed 002).

- `compact`: the signature and the first line of the doc;
- `preview`: the whole chunk up to 40 lines, else its first 25 lines and "… N more
  lines", cut at a line boundary near 1,500 characters;
- `full`: the whole chunk.
Secrets that slipped into code are redacted at every level.
"""

from __future__ import annotations

from codecompass.errors import InputError
from codecompass.models import ChunkRecord
from codecompass.security.secrets import redact_secrets

DETAILS = ("compact", "preview", "full")
PREVIEW_MAX_LINES = 40
PREVIEW_HEAD_LINES = 25
PREVIEW_MAX_CHARS = 1500


def check_detail(detail: str) -> str:
    if detail not in DETAILS:
        raise InputError(f"Unknown detail {detail!r}; use one of: {', '.join(DETAILS)}.")
    return detail


def format_snippet(chunk: ChunkRecord, detail: str, doc: str = "") -> str:
    if detail == "compact":
        text = compact(chunk, doc)
    elif detail == "preview":
        text = preview(chunk.text)
    else:
        text = chunk.text
    return redact_secrets(text)[0]


def compact(chunk: ChunkRecord, doc: str = "") -> str:
    first_doc = next((line.strip() for line in doc.splitlines() if line.strip()), "")
    head = chunk.signature or next(
        (line.strip() for line in chunk.text.splitlines() if line.strip()), ""
    )
    return f"{head}\n{first_doc}" if first_doc else head


def preview(text: str) -> str:
    lines = text.split("\n")
    keep = lines if len(lines) <= PREVIEW_MAX_LINES else lines[:PREVIEW_HEAD_LINES]
    out: list[str] = []
    size = 0
    for line in keep:
        if out and size + len(line) + 1 > PREVIEW_MAX_CHARS:
            break
        out.append(line[:PREVIEW_MAX_CHARS])
        size += len(line) + 1
    hidden = len(lines) - len(out)
    if hidden:
        out.append(f"… {hidden} more line{'s' if hidden != 1 else ''}")
    return "\n".join(out)
