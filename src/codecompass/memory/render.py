"""Memories as text: `compact` (one line each), `full` (every field) and `context` (the
Markdown block an agent hook injects at session start)."""

from __future__ import annotations

from collections.abc import Sequence

from codecompass.models import MEMORY_TYPES
from codecompass.schemas import MemoryItem

COMPACT_CHARS = 200  # a compact line shows at most this much of the content
HEADINGS = {
    "context": "Context",
    "decision": "Decisions",
    "pattern": "Patterns",
    "spec": "Specs",
    "error": "Errors and fixes",
}
CONTEXT_TITLE = "## Project Memory"


def one_line(text: str, limit: int = COMPACT_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _about(item: MemoryItem) -> str:
    if not item.links:
        return ""
    shown = [f"{link} (gone)" if link in item.dangling else link for link in item.links]
    return " → " + ", ".join(shown)


def compact(item: MemoryItem) -> str:
    tags = " " + " ".join(f"#{t}" for t in item.tags) if item.tags else ""
    return f"{item.id} [{item.type}] {one_line(item.content)}{tags}{_about(item)}"


def full(item: MemoryItem) -> str:
    lines = [f"{item.id} [{item.type}]" + (" (expired)" if item.expired else "")]
    lines += ["  " + line for line in item.content.splitlines()]
    if item.tags:
        lines.append("  tags: " + ", ".join(item.tags))
    for link in item.links:
        lines.append(
            f"  about: {link}" + (" (no longer in the index)" if link in item.dangling else "")
        )
    used = f"used {item.access_count}×" + (
        f", last {item.last_accessed}" if item.last_accessed else ""
    )
    expires = f"expires {item.expires_at}" if item.expires_at else "never expires"
    lines.append(f"  source: {item.source or '-'} · created {item.created} · {used} · {expires}")
    return "\n".join(lines)


def context_line(item: MemoryItem) -> str:
    about = ""
    live = [link for link in item.links if link not in item.dangling]
    if live:
        about = " (about " + ", ".join(f"`{link}`" for link in live) + ")"
    return f"- {one_line(item.content, 400)}{about}"


def render(items: Sequence[MemoryItem], detail: str) -> str:
    if detail == "full":
        return "\n\n".join(full(i) for i in items)
    if detail == "compact":
        return "\n".join(compact(i) for i in items)
    return context_block(items)


def context_block(items: Sequence[MemoryItem]) -> str:
    """Markdown for an agent's context: grouped by type; empty when there is nothing."""
    if not items:
        return ""
    parts = [
        CONTEXT_TITLE,
        "What earlier sessions recorded about this project (Code Compass memory; "
        "`memory_recall` finds more).",
    ]
    for kind in MEMORY_TYPES:
        group = [i for i in items if i.type == kind]
        if group:
            parts.append(f"\n### {HEADINGS[kind]}")
            parts.extend(context_line(i) for i in group)
    return "\n".join(parts) + "\n"
