"""The memory bank of one workspace: remember, recall, forget.

Writing refuses secrets, returns the stored id for an exact duplicate (same normalized
text), merges or skips a paraphrase (cosine at or above `[memory] near_duplicate`), and
keeps each type and the whole project under its cap by evicting the weakest memories.

A memory expires `<type>_days` after it was written. Recall leaves out *stale*
memories (expired and used at most `min_access_count` times): nobody needed them in
their lifetime. `prune` deletes them for good. A memory that was used stays until a cap
evicts it, or, with decay on, until its salience falls below `prune_threshold`.

Recall counts as a use (access count, last accessed); the session-start context does
not, or every memory injected there would live forever.
"""

from __future__ import annotations

import json
import re
import unicodedata
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import numpy as np

from codecompass.answer import approx_tokens
from codecompass.decoding import well_formed
from codecompass.errors import CodeCompassError, InputError, NotFoundError
from codecompass.hashing import hash_bytes, normalize_text
from codecompass.models import MEMORY_TYPES, MemoryQuery, MemoryRecord, MemoryType
from codecompass.protocols import Embedder, MemoryStore, Vectors
from codecompass.schemas import (
    CaptureItem,
    Hit,
    MemoryItem,
    MemoryNote,
    MemoryStatus,
    PruneResult,
    RecallHit,
    RecallResult,
    RememberResult,
)
from codecompass.security.secrets import find_secrets
from codecompass.settings import MemorySettings

from . import recall as ranking
from .capture import Proposal
from .render import CONTEXT_TITLE, HEADINGS, compact, context_line, full, one_line, render
from .similarity import same_fact

EXPORT_FORMAT = 1
MAX_CONTENT_CHARS = 8000  # one memory is a fact, not a document
MAX_TAGS = 20
_TYPE_PREFIX = re.compile(
    r"^\s*(decision|pattern|error|fix|spec|context)\s*(?::|\s[-–]\s)\s*", re.I
)
_BACKTICKED = re.compile(r"`([^`\s]{2,200})`")


@dataclass(frozen=True, slots=True)
class CodeLinks:
    """How memories reach the code index: `resolve` turns a name, qualified name, node
    id or path into a node id (raising a clear error when it cannot), `missing` says
    which link targets are no longer in the index, `allows` whether the caller may see
    a target."""

    resolve: Callable[[str], str]
    missing: Callable[[Sequence[str]], set[str]]
    allows: Callable[[str], bool] = lambda target: True


def _nothing_indexed(name: str) -> str:
    raise InputError(f"Cannot link {name!r}: nothing is indexed yet; run `codecompass index`.")


NO_CODE = CodeLinks(resolve=_nothing_indexed, missing=lambda targets: set())


def normalize_memory(text: str) -> str:
    """The form exact duplicates are found by: normalized text, case folded, runs of
    white space made one space."""
    return " ".join(unicodedata.normalize("NFKC", normalize_text(text)).casefold().split())


def memory_hash(text: str) -> str:
    return hash_bytes(normalize_memory(text).encode("utf-8"))


def dedupe_text(content: str) -> str:
    """The text compared for paraphrases: a leading "Decision:"-style label says what
    the type field says already, and agents write it only sometimes."""
    return _TYPE_PREFIX.sub("", content, count=1)


def hit_targets(hits: Iterable[Hit]) -> list[str]:
    """The symbols and files search hits are about, as memory link targets."""
    targets: list[str] = []
    for hit in hits:
        file = f"{hit.repo}/{hit.path}"
        targets += [f"{file}#{hit.symbol}", file] if hit.symbol else [file]
    return list(dict.fromkeys(targets))


class MemoryBank:
    def __init__(
        self,
        store: MemoryStore,
        embedder: Embedder | Callable[[], Embedder],
        settings: MemorySettings,
        *,
        code: CodeLinks = NO_CODE,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.store = store
        # Opened on first use: listing memories, or the notes beside a graph answer,
        # need no model.
        self._embedder = embedder
        self.settings = settings
        self.code = code
        self.clock = clock
        self._terms: dict[str, tuple[str, Counter[str]]] = {}  # id → (updated, terms)

    @property
    def embedder(self) -> Embedder:
        if callable(self._embedder):
            self._embedder = self._embedder()
        return self._embedder

    # -- helpers ----------------------------------------------------------------------
    def _now(self) -> str:
        return self.clock().astimezone(UTC).isoformat(timespec="milliseconds")

    def ttl_days(self, kind: str) -> int:
        return cast(int, getattr(self.settings, f"{kind}_days"))

    def _expires(self, kind: str, created: str) -> str | None:
        days = self.ttl_days(kind)
        if days <= 0:
            return None
        when = datetime.fromisoformat(created) + timedelta(days=days)
        return when.isoformat(timespec="milliseconds")

    def _expired(self, record: MemoryRecord, now: str) -> bool:
        return record.expires_at is not None and record.expires_at <= now

    def _stale(self, record: MemoryRecord, now: str) -> bool:
        return self._expired(record, now) and record.access_count <= self.settings.min_access_count

    def _half_life(self) -> float | None:
        return float(self.settings.half_life_days) if self.settings.decay else None

    def _embed(self, text: str) -> Vectors:
        vector: Vectors = self.embedder.embed([dedupe_text(text)])[0]
        return vector

    def item(self, record: MemoryRecord, *, now: str | None = None) -> MemoryItem:
        return self._items([record], now=now)[0]

    def _items(
        self, records: Sequence[MemoryRecord], *, now: str | None = None
    ) -> list[MemoryItem]:
        now = now or self._now()
        missing = self.code.missing(sorted({link for r in records for link in r.links}))
        return [
            MemoryItem(
                id=r.id,
                type=r.type,
                content=r.content,
                tags=list(r.tags),
                source=r.source,
                links=list(r.links),
                dangling=[link for link in r.links if link in missing],
                created=r.created,
                updated=r.updated,
                last_accessed=r.last_accessed,
                access_count=r.access_count,
                salience=r.salience,
                expires_at=r.expires_at,
                expired=self._expired(r, now),
            )
            for r in records
        ]

    def _visible(self, records: Iterable[MemoryRecord]) -> list[MemoryRecord]:
        return [r for r in records if all(self.code.allows(link) for link in r.links)]

    # -- writing ----------------------------------------------------------------------
    def check_content(self, content: str) -> str:
        text = well_formed(content).strip()
        if not text:
            raise InputError("The memory is empty; give the fact to remember.")
        if len(text) > MAX_CONTENT_CHARS:
            raise InputError(
                f"The memory is {len(text):,} characters; keep one fact per memory "
                f"(at most {MAX_CONTENT_CHARS:,}) and split a longer note."
            )
        secrets = find_secrets(text)
        if secrets:
            found = "; ".join(f"{s.hint} on line {s.line}" for s in secrets)
            raise InputError(
                f"Refused: the memory holds a secret ({found}). Memories are shared with "
                "every agent of the project and embedded; say where the secret is kept "
                "(e.g. 'the deploy token is in Vault at ci/deploy') instead of its value."
            )
        return text

    @staticmethod
    def check_type(kind: str) -> MemoryType:
        if kind not in MEMORY_TYPES:
            raise InputError(
                f"Unknown memory type {kind!r}; use one of: {', '.join(MEMORY_TYPES)}."
            )
        return kind

    @staticmethod
    def clean_tags(tags: Iterable[str]) -> tuple[str, ...]:
        out: list[str] = []
        for tag in tags:
            clean = "-".join(tag.strip().lstrip("#").casefold().split())
            if clean and clean not in out:
                out.append(clean)
        if len(out) > MAX_TAGS:
            raise InputError(f"{len(out)} tags given; at most {MAX_TAGS}.")
        return tuple(out)

    def _links(self, content: str, symbols: Iterable[str]) -> tuple[str, ...]:
        """Explicit links must resolve; a `backticked` name in the text links when it
        names exactly one symbol or file."""
        links = [self.code.resolve(name) for name in symbols if name.strip()]
        for name in _BACKTICKED.findall(content):
            try:
                target = self.code.resolve(name)
            except CodeCompassError:
                continue
            links.append(target)
        return tuple(dict.fromkeys(links))

    def remember(
        self,
        content: str,
        *,
        type: str = "context",
        tags: Iterable[str] = (),
        symbols: Iterable[str] = (),
        source: str = "api",
        salience: float = 1.0,
    ) -> RememberResult:
        """Store one fact; see the module docstring for what happens to duplicates."""
        kind = self.check_type(type)
        text = self.check_content(content)
        if not 0.0 < salience <= 1.0:
            raise InputError(f"salience {salience} is outside (0, 1]; 1.0 is the most salient.")
        tag_set = self.clean_tags(tags)
        links = self._links(text, symbols)
        now = self._now()
        digest = memory_hash(text)
        stored = self.store.memories(MemoryQuery(with_vectors=True))  # one read per write
        same = [r for r in stored if r.content_hash == digest]
        if same:
            kept = self._extend(same[0], tag_set, links, now)
            return RememberResult(
                status="duplicate",
                id=kept.id,
                links=list(kept.links),
                message=f"Already remembered as {kept.id} (same text).",
            )
        vector = self._embed(text)
        near = self._paraphrase_of(text, vector, stored)
        if near is not None:
            return self._merge(near[0], near[1], text, digest, vector, tag_set, links, now)
        record = MemoryRecord(
            id=f"mem_{uuid.uuid4().hex[:12]}",
            type=kind,
            content=text,
            content_hash=digest,
            tags=tag_set,
            source=source,
            links=links,
            created=now,
            updated=now,
            salience=salience,
            expires_at=self._expires(kind, now),
            vector=vector,
        )
        evicted = self._over_caps(record, now, stored)
        self.store.write_memories([record], delete=evicted)
        note = f"; evicted {len(evicted)} weaker memories to stay within caps" if evicted else ""
        return RememberResult(
            status="created",
            id=record.id,
            links=list(links),
            evicted=evicted,
            message=f"Remembered as {record.id}{note}.",
        )

    def _extend(
        self, record: MemoryRecord, tags: tuple[str, ...], links: tuple[str, ...], now: str
    ) -> MemoryRecord:
        """The record with these tags and links added (written when that changed it)."""
        new_tags = tuple(dict.fromkeys(record.tags + tags))
        new_links = tuple(dict.fromkeys(record.links + links))
        if new_tags == record.tags and new_links == record.links:
            return record
        updated = replace(record, tags=new_tags, links=new_links, updated=now, vector=None)
        self.store.write_memories([updated])
        return updated

    def _paraphrase_of(
        self, text: str, vector: Vectors, stored: Sequence[MemoryRecord]
    ) -> tuple[MemoryRecord, float] | None:
        """The stored memory saying the same fact (most similar first), and its cosine."""
        records = [r for r in stored if r.vector is not None]
        if not records:
            return None
        cosines = np.stack([r.vector for r in records]) @ vector
        threshold = self.settings.near_duplicate
        for i in np.argsort(-cosines):
            cosine = float(cosines[i])
            if cosine < threshold:
                break
            if same_fact(records[i].content, text, cosine, threshold):
                return records[i], cosine
        return None

    def _merge(
        self,
        stored: MemoryRecord,
        cosine: float,
        text: str,
        digest: str,
        vector: Vectors,
        tags: tuple[str, ...],
        links: tuple[str, ...],
        now: str,
    ) -> RememberResult:
        """A paraphrase: the longer wording is kept (it usually says more), tags and links
        are joined, and the memory's life starts again."""
        longer = len(text) > len(stored.content)
        new_tags = tuple(dict.fromkeys(stored.tags + tags))
        new_links = tuple(dict.fromkeys(stored.links + links))
        similarity = round(cosine, 4)
        if not longer and new_tags == stored.tags and new_links == stored.links:
            return RememberResult(
                status="skipped",
                id=stored.id,
                similar_to=stored.id,
                similarity=similarity,
                links=list(stored.links),
                message=f"Skipped: {stored.id} says the same (cosine {similarity:.2f}).",
            )
        merged = replace(
            stored,
            content=text if longer else stored.content,
            content_hash=digest if longer else stored.content_hash,
            tags=new_tags,
            links=new_links,
            updated=now,
            expires_at=self._expires(stored.type, now),
            vector=vector if longer else None,
        )
        self.store.write_memories([merged])
        what = "its wording" if longer else "tags or links"
        return RememberResult(
            status="merged",
            id=stored.id,
            similar_to=stored.id,
            similarity=similarity,
            links=list(new_links),
            message=f"Merged into {stored.id} (cosine {similarity:.2f}; took {what}).",
        )

    def _over_caps(self, new: MemoryRecord, now: str, records: Sequence[MemoryRecord]) -> list[str]:
        """The weakest memories to drop so that, with `new`, no cap is exceeded."""
        same_count = sum(1 for r in records if r.type == new.type)
        if same_count < self.settings.max_per_type and len(records) < self.settings.max_per_project:
            return []
        half_life = self._half_life()
        clock = datetime.fromisoformat(now)

        def strength(r: MemoryRecord) -> tuple[bool, bool, float, int, str]:
            return (
                not self._stale(r, now),
                not self._expired(r, now),
                ranking.effective_salience(r, clock, half_life),
                r.access_count,
                r.last_accessed or r.created,
            )

        evicted: list[str] = []
        same_type = sorted((r for r in records if r.type == new.type), key=strength)
        excess = len(same_type) + 1 - self.settings.max_per_type
        evicted += [r.id for r in same_type[: max(0, excess)]]
        dropped = set(evicted)
        rest = sorted((r for r in records if r.id not in dropped), key=strength)
        excess = len(rest) + 1 - self.settings.max_per_project
        evicted += [r.id for r in rest[: max(0, excess)]]
        return evicted

    # -- reading ----------------------------------------------------------------------
    def get(self, ids: Sequence[str]) -> list[MemoryItem]:
        records = self._visible(self.store.memories(MemoryQuery(ids=tuple(ids))))
        unknown = sorted(set(ids) - {r.id for r in records})
        if unknown:
            raise NotFoundError(
                f"No memory {', '.join(unknown)}; "
                "`memory list` (the memory_list tool) shows the ids."
            )
        return self._items(records)

    def entries(
        self,
        *,
        types: Sequence[str] = (),
        tags: Sequence[str] = (),
        symbols: Sequence[str] = (),
        include_expired: bool = True,
        limit: int | None = None,
    ) -> list[MemoryItem]:
        """Memories newest first, filtered as `recall` filters (no ranking, no budget)."""
        records = self._select(types, tags, symbols, include_expired=include_expired, since=None)
        records.sort(key=lambda r: (r.created, r.id), reverse=True)
        return self._items(records[:limit] if limit else records)

    def _select(
        self,
        types: Sequence[str],
        tags: Sequence[str],
        symbols: Sequence[str],
        *,
        include_expired: bool,
        since: str | None,
        with_vectors: bool = False,
    ) -> list[MemoryRecord]:
        kinds = tuple(self.check_type(t) for t in types)
        if since is not None:
            try:
                when = datetime.fromisoformat(since)
                when = when.replace(tzinfo=UTC) if when.tzinfo is None else when
                since = when.astimezone(UTC).isoformat(timespec="milliseconds")
            except ValueError as exc:
                raise InputError(
                    f"since {since!r} is not an ISO date or time; e.g. 2026-01-31."
                ) from exc
        linked = tuple(self.code.resolve(s) for s in symbols)
        wanted = set(self.clean_tags(tags))
        now = self._now()
        records = self.store.memories(
            MemoryQuery(types=kinds, linked_to=linked, with_vectors=with_vectors)
        )
        return [
            r
            for r in self._visible(records)
            if wanted <= set(r.tags)
            and (include_expired or not self._stale(r, now))
            and (since is None or max(r.created, r.last_accessed or "") >= since)
        ]

    def _lexical(self, query: str, records: Sequence[MemoryRecord]) -> dict[str, float]:
        for r in records:
            cached = self._terms.get(r.id)
            if cached is None or cached[0] != r.updated:
                self._terms[r.id] = (
                    r.updated,
                    ranking.memory_terms(r.content + " " + " ".join(r.tags)),
                )
        docs = {r.id: self._terms[r.id][1] for r in records}
        return ranking.bm25(list(ranking.memory_terms(query)), docs, docs)

    def recall(
        self,
        query: str = "",
        *,
        types: Sequence[str] = (),
        tags: Sequence[str] = (),
        symbols: Sequence[str] = (),
        since: str | None = None,
        limit: int = 20,
        budget_tokens: int | None = None,
        detail: str = "compact",
        include_expired: bool = False,
        touch: bool = True,
    ) -> RecallResult:
        """The memories about `query` (or, without one, the most salient and recent),
        best first, within `budget_tokens`; each one recalled counts as a use."""
        if detail not in ("compact", "full", "context"):
            raise InputError(f"Unknown detail {detail!r}; use compact, full or context.")
        budget = self.settings.budget_tokens if budget_tokens is None else budget_tokens
        if budget < 50:
            raise InputError(
                f"budget_tokens {budget} is too small to show a memory; give 50 or more."
            )
        if limit < 1:
            raise InputError("limit must be at least 1.")
        query = well_formed(query).strip()
        records = self._select(
            types,
            tags,
            symbols,
            include_expired=include_expired,
            since=since,
            with_vectors=bool(query),
        )
        clock = self.clock().astimezone(UTC)
        cosines = lexical = None
        if query and records:
            vector = self.embedder.embed([query])[0]
            with_vectors = [r for r in records if r.vector is not None]
            if with_vectors:
                sims = np.stack([r.vector for r in with_vectors]) @ vector
                cosines = {r.id: float(s) for r, s in zip(with_vectors, sims, strict=True)}
            else:
                cosines = {}
            lexical = self._lexical(query, records)
        ranked = ranking.rank(
            records, now=clock, half_life_days=self._half_life(), cosines=cosines, lexical=lexical
        )
        # Only the best few can be shown: build items (and check links) for those alone.
        candidates = ranked[: limit * 4]
        items = {i.id: i for i in self._items([s.record for s in candidates])}
        shown = self._fit(candidates, items, budget, detail)[:limit]
        if detail == "context":
            shown.sort(key=lambda s: MEMORY_TYPES.index(s.record.type))
        hits = [RecallHit(memory=items[s.record.id], score=s.score, why=s.why) for s in shown]
        if touch and hits:
            self.store.touch_memories([h.memory.id for h in hits], self._now())
        text = render([h.memory for h in hits], detail)
        return RecallResult(
            query=query,
            hits=hits,
            tokens=approx_tokens(text),
            budget=budget,
            matched=len(ranked),
            omitted=len(ranked) - len(hits),
            detail=cast(Any, detail),
            text=text,
        )

    def _fit(
        self,
        ranked: Sequence[ranking.Scored],
        items: dict[str, MemoryItem],
        budget: int,
        detail: str,
    ) -> list[ranking.Scored]:
        if detail == "context":
            line = context_line
            overhead = approx_tokens(CONTEXT_TITLE + "\n" + "x" * 120) + sum(
                approx_tokens(f"\n### {h}\n") for h in HEADINGS.values()
            )
        else:
            line = compact if detail == "compact" else full
            overhead = 0
        # Each entry's own tokens plus its separator; rounding up per entry keeps the sum
        # at or above the tokens of the joined text.
        return ranking.fit_budget(
            ranked, lambda s: approx_tokens(line(items[s.record.id]) + "\n\n"), budget - overhead
        )

    def context(self, *, budget_tokens: int | None = None) -> RecallResult:
        """The "## Project Memory" block for an agent's session start (not a use)."""
        return self.recall(budget_tokens=budget_tokens, limit=10_000, detail="context", touch=False)

    def notes(self, targets: Sequence[str], *, limit: int = 10) -> list[MemoryNote]:
        """Memories about any of these symbols or files, for search and graph results."""
        if not targets:
            return []
        now = self._now()
        records = [
            r
            for r in self._visible(self.store.memories(MemoryQuery(linked_to=tuple(targets))))
            if not self._stale(r, now)
        ]
        records.sort(key=lambda r: (-r.salience, r.created, r.id))
        wanted = set(targets)
        return [
            MemoryNote(
                id=r.id,
                type=r.type,
                content=one_line(r.content.splitlines()[0] if r.content else ""),
                about=[link for link in r.links if link in wanted],
            )
            for r in records[:limit]
        ]

    # -- capture ----------------------------------------------------------------------
    def keep_proposals(
        self, proposals: Sequence[Proposal], *, source: str, dry_run: bool = False
    ) -> list[CaptureItem]:
        """Remember what a session capture proposed, under the rules of an automatic
        write: secrets refused, short statements rejected, duplicates as `remember`
        treats them. With `dry_run`, what would be kept, and nothing written."""
        items: list[CaptureItem] = []
        for p in proposals:
            base = CaptureItem(
                type=p.type,
                content=p.content,
                tags=list(p.tags),
                reason=p.reason,
                status="rejected",
            )
            words = len(p.content.split())
            if words < self.settings.capture_min_words:
                detail = f"{words} words; a captured memory needs {self.settings.capture_min_words}"
                items.append(base.model_copy(update={"status": "rejected", "detail": detail}))
                continue
            try:
                self.check_content(p.content)
            except InputError as exc:
                items.append(base.model_copy(update={"status": "refused", "detail": str(exc)}))
                continue
            if dry_run:
                items.append(self._would_keep(base, p.content))
                continue
            done = self.remember(p.content, type=p.type, tags=p.tags, source=source)
            items.append(
                base.model_copy(
                    update={"status": done.status, "id": done.id, "detail": done.message}
                )
            )
        return items

    def _would_keep(self, base: CaptureItem, content: str) -> CaptureItem:
        same = self.store.memories(MemoryQuery(content_hash=memory_hash(content)))
        if same:
            return base.model_copy(
                update={"status": "duplicate", "id": same[0].id, "detail": "same text"}
            )
        stored = self.store.memories(MemoryQuery(with_vectors=True))
        near = self._paraphrase_of(content, self._embed(content), stored)
        if near is not None:
            detail = f"paraphrase of {near[0].id} (cosine {near[1]:.2f}): merged or skipped"
            return base.model_copy(update={"status": "skipped", "id": near[0].id, "detail": detail})
        return base.model_copy(update={"status": "would_keep"})

    # -- forgetting -------------------------------------------------------------------
    def forget(self, ids: Sequence[str]) -> list[str]:
        """Delete these memories; every id must exist (nothing is deleted otherwise)."""
        if not ids:
            raise InputError(
                "Name the memories to forget (ids from `memory list`, the memory_list tool)."
            )
        found = self.get(ids)
        self.store.write_memories([], delete=[i.id for i in found])
        return [i.id for i in found]

    def clear(self) -> int:
        records = self._visible(self.store.memories(MemoryQuery()))
        self.store.write_memories([], delete=[r.id for r in records])
        return len(records)

    def prunable(self) -> dict[str, str]:
        """id → why, for every memory `prune` would delete now."""
        now = self._now()
        clock = datetime.fromisoformat(now)
        half_life = self._half_life()
        reasons: dict[str, str] = {}
        for r in self.store.memories(MemoryQuery()):
            if self._stale(r, now):
                reasons[r.id] = f"expired {r.expires_at}, used {r.access_count}×"
            elif half_life and r.access_count <= self.settings.min_access_count:
                salience = ranking.effective_salience(r, clock, half_life)
                if salience < self.settings.prune_threshold:
                    reasons[r.id] = (
                        f"salience decayed to {salience:.2f} "
                        f"(< {self.settings.prune_threshold:g}), used {r.access_count}×"
                    )
        return reasons

    def prune(self, *, dry_run: bool = False) -> PruneResult:
        reasons = self.prunable()
        doomed = self.store.memories(MemoryQuery(ids=tuple(reasons))) if reasons else []
        items = self._items(doomed)
        if not dry_run and doomed:
            self.store.write_memories([], delete=[r.id for r in doomed])
        total = len(self.store.memories(MemoryQuery()))
        return PruneResult(dry_run=dry_run, deleted=items, reasons=reasons, remaining=total)

    # -- status, export, import ---------------------------------------------------------
    def status(self) -> MemoryStatus:
        records = self.store.memories(MemoryQuery())
        now = self._now()
        by_type = Counter(r.type for r in records)
        targets = sorted({link for r in records for link in r.links})
        missing = self.code.missing(targets)
        caps = {"project": self.settings.max_per_project, "per_type": self.settings.max_per_type}
        over: dict[str, int] = {
            t: n - self.settings.max_per_type
            for t, n in by_type.items()
            if n > self.settings.max_per_type
        }
        if len(records) > self.settings.max_per_project:
            over["project"] = len(records) - self.settings.max_per_project
        return MemoryStatus(
            total=len(records),
            by_type={t: by_type.get(t, 0) for t in MEMORY_TYPES},
            by_source=dict(sorted(Counter(r.source for r in records).items())),
            expired=sum(self._expired(r, now) for r in records),
            prunable=len(self.prunable()),
            dangling=[
                {"id": r.id, "target": link} for r in records for link in r.links if link in missing
            ],
            caps=caps,
            over_cap=over,
            budget_tokens=self.settings.budget_tokens,
            oldest=min((r.created for r in records), default=None),
            newest=max((r.created for r in records), default=None),
        )

    def export_lines(self) -> list[str]:
        """JSON Lines: a header, then every memory with every field but its vector (the
        vector is the embedder's to recompute)."""
        records = self.store.memories(MemoryQuery())
        header = {
            "codecompass_memories": EXPORT_FORMAT,
            "model": self.embedder.model_id,
            "count": len(records),
        }
        lines = [json.dumps(header, sort_keys=True)]
        for r in records:
            row = {
                "id": r.id,
                "type": r.type,
                "content": r.content,
                "content_hash": r.content_hash,
                "tags": list(r.tags),
                "source": r.source,
                "links": list(r.links),
                "created": r.created,
                "updated": r.updated,
                "last_accessed": r.last_accessed,
                "access_count": r.access_count,
                "salience": r.salience,
                "expires_at": r.expires_at,
            }
            lines.append(json.dumps(row, sort_keys=True, ensure_ascii=False))
        return lines

    def import_lines(self, lines: Iterable[str]) -> dict[str, Any]:
        """Restore an export exactly (ids, times, use counts). A memory whose id or text
        is already stored is skipped; one holding a secret is refused. All or nothing:
        a malformed line stops the import before anything is written."""
        records: list[MemoryRecord] = []
        header_seen = False
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise InputError(f"Line {number} of the memory export is not JSON: {exc}.") from exc
            if not header_seen:
                if not isinstance(row, dict) or row.get("codecompass_memories") != EXPORT_FORMAT:
                    raise InputError(
                        "Not a Code Compass memory export (the first line must be the header "
                        f'{{"codecompass_memories": {EXPORT_FORMAT}, ...}}); make one with '
                        "`codecompass memory export`."
                    )
                header_seen = True
                continue
            records.append(self._parse_row(row, number))
        if not header_seen:
            raise InputError(
                "The memory export is empty; make one with `codecompass memory export`."
            )
        stored = self.store.memories(MemoryQuery())
        ids = {r.id for r in stored}
        hashes = {r.content_hash for r in stored}
        fresh, skipped, refused = [], [], []
        for record in records:
            if record.id in ids or record.content_hash in hashes:
                skipped.append(record.id)
                continue
            if find_secrets(record.content):
                refused.append(record.id)
                continue
            ids.add(record.id)
            hashes.add(record.content_hash)
            fresh.append(record)
        if fresh:
            vectors = self.embedder.embed([dedupe_text(r.content) for r in fresh])
            self.store.write_memories(
                [replace(r, vector=v) for r, v in zip(fresh, vectors, strict=True)]
            )
        return {"imported": len(fresh), "skipped": skipped, "refused": refused}

    def _parse_row(self, row: Any, number: int) -> MemoryRecord:
        try:
            content = str(row["content"])
            record = MemoryRecord(
                id=str(row["id"]),
                type=self.check_type(str(row["type"])),
                content=content,
                content_hash=memory_hash(content),
                tags=tuple(str(t) for t in row.get("tags", [])),
                source=str(row.get("source", "import")),
                links=tuple(str(t) for t in row.get("links", [])),
                created=str(row["created"]),
                updated=str(row.get("updated") or row["created"]),
                last_accessed=row.get("last_accessed"),
                access_count=int(row.get("access_count", 0)),
                salience=float(row.get("salience", 1.0)),
                expires_at=row.get("expires_at"),
            )
            datetime.fromisoformat(record.created)
        except KeyError as exc:
            raise InputError(f"Line {number} of the memory export lacks the field {exc}.") from exc
        except (TypeError, ValueError, InputError) as exc:
            raise InputError(f"Line {number} of the memory export is not a memory: {exc}.") from exc
        return record
