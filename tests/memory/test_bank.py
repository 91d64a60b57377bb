"""The memory bank with the real embedder over the reference store, on an injected clock:
dedupe, secrets, recall within a budget, TTL, caps, decay, prune, export → import."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from codecompass.answer import approx_tokens
from codecompass.embedders import create_embedder
from codecompass.errors import InputError, NotFoundError
from codecompass.memory.bank import CodeLinks, MemoryBank, memory_hash
from codecompass.memory.capture import Proposal
from codecompass.models import MemoryQuery
from codecompass.protocols import Embedder
from codecompass.settings import MemorySettings
from codecompass.storage.memory import open_memory

START = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
GH_TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now

    def advance(self, days: float) -> None:
        self.now += timedelta(days=days)


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return create_embedder()


@pytest.fixture
def clock() -> Clock:
    return Clock()


def make_bank(embedder: Embedder, clock: Clock, **settings: object) -> MemoryBank:
    return MemoryBank(
        open_memory().memories,
        embedder,
        replace(MemorySettings(), **settings),  # type: ignore[arg-type]
        clock=clock,
    )


@pytest.fixture
def bank(embedder: Embedder, clock: Clock) -> MemoryBank:
    return make_bank(embedder, clock)


def test_remember_stores_every_field(bank: MemoryBank) -> None:
    done = bank.remember(
        "Decision: the job queue uses PostgreSQL advisory locks instead of Redis.",
        type="decision",
        tags=["DB", " queue ", "#db"],
        source="cli",
    )
    assert done.status == "created"
    [item] = bank.get([done.id])
    assert item.type == "decision"
    assert item.tags == ["db", "queue"]
    assert item.source == "cli"
    assert item.created == "2026-01-01T12:00:00.000+00:00"
    assert item.expires_at == "2026-04-01T12:00:00.000+00:00"  # 90 days
    assert item.access_count == 0 and item.last_accessed is None
    ctx = bank.remember("The backend is Python 3.12 with FastAPI and SQLAlchemy 2.")
    assert bank.get([ctx.id])[0].expires_at is None  # context never expires


def test_exact_duplicate_returns_the_stored_id_and_joins_tags(bank: MemoryBank) -> None:
    first = bank.remember("Use ruff for linting and formatting.", type="pattern")
    again = bank.remember("  use RUFF for linting   and formatting.  ", tags=["lint"])
    assert again.status == "duplicate" and again.id == first.id
    assert bank.get([first.id])[0].tags == ["lint"]
    assert bank.status().total == 1


def test_a_paraphrase_merges_and_a_related_fact_stays_apart(bank: MemoryBank) -> None:
    first = bank.remember(
        "We replaced Create React App with Vite for the frontend build.", type="decision"
    )
    para = bank.remember(
        "Decision: the frontend build moved from Create React App to Vite because CRA was "
        "slow and unmaintained.",
        type="decision",
    )
    assert para.status == "merged" and para.id == first.id
    assert para.similarity is not None and para.similarity >= 0.7
    merged = bank.get([first.id])[0]
    assert merged.content.endswith("slow and unmaintained.")  # the longer wording is kept
    same = bank.remember("We replaced Create React App with Vite for the frontend build.")
    assert same.status == "skipped" and same.similar_to == first.id
    node18 = bank.remember("CI runs the frontend build on Node 18.", type="context")
    node20 = bank.remember("CI runs the frontend build on Node 20.", type="context")
    assert node18.status == node20.status == "created"  # numbers conflict: two facts
    assert bank.status().total == 3


def test_a_secret_is_refused_with_the_reason_and_nothing_is_stored(bank: MemoryBank) -> None:
    with pytest.raises(InputError, match="secret") as caught:
        bank.remember(f"The release bot authenticates with {GH_TOKEN}.")
    assert GH_TOKEN not in str(caught.value)
    assert bank.status().total == 0
    kept = bank.remember("The release bot's token lives in Vault at ci/release-bot.")
    assert kept.status == "created"


def test_recall_ranks_by_meaning_and_counts_a_use(bank: MemoryBank, clock: Clock) -> None:
    locks = bank.remember(
        "The job queue uses PostgreSQL advisory locks so two workers never take one job.",
        type="decision",
    )
    bank.remember("Frontend components follow a feature-first folder layout.", type="pattern")
    bank.remember(
        "CORS errors in staging came from nginx dropping the Origin header.", type="error"
    )
    clock.advance(1)
    result = bank.recall("how do workers avoid running the same job twice")
    assert result.hits[0].memory.id == locks.id
    assert result.hits[0].why["dense"] > 0.3
    assert result.tokens <= result.budget == 2000
    [item] = bank.get([locks.id])
    assert item.access_count == 1
    assert item.last_accessed == "2026-01-02T12:00:00.000+00:00"


def test_recall_filters_by_type_tag_and_time(bank: MemoryBank, clock: Clock) -> None:
    old = bank.remember("Migrations run with alembic upgrade head.", type="pattern", tags=["db"])
    clock.advance(10)
    new = bank.remember(
        "Database migrations must be backwards compatible.", type="spec", tags=["db"]
    )
    since = (START + timedelta(days=5)).isoformat()
    assert [h.memory.id for h in bank.recall("migrations", since=since).hits] == [new.id]
    assert [h.memory.id for h in bank.recall("migrations", types=["spec"]).hits] == [new.id]
    assert {h.memory.id for h in bank.recall("migrations", tags=["db"]).hits} == {old.id, new.id}
    assert bank.recall("migrations", tags=["db", "ci"]).hits == []
    # "since" counts uses too: the old memory was just recalled.
    assert len(bank.recall("migrations", since=since).hits) == 2


def test_recall_stays_within_the_budget_and_shares_it_by_type(
    embedder: Embedder, clock: Clock
) -> None:
    bank = make_bank(embedder, clock)
    for i in range(40):
        bank.remember(
            f"Decision {i}: service number {i} talks to the billing API through the gateway "
            f"client with retries, timeouts of {i + 1} seconds and circuit breaking.",
            type="decision",
        )
    fix = bank.remember(
        "Fix: billing API timeouts came from the gateway client's DNS cache; we set a TTL.",
        type="error",
    )
    result = bank.recall("billing API gateway timeouts", budget_tokens=300, limit=100)
    assert result.tokens <= 300
    assert approx_tokens(result.text) == result.tokens
    ids = [h.memory.id for h in result.hits]
    assert fix.id in ids  # the error's share is not eaten by forty decisions
    assert result.omitted == result.matched - len(result.hits) > 0


def test_renderings(bank: MemoryBank) -> None:
    done = bank.remember("Specs live in docs/specs as Markdown.", type="spec", tags=["docs"])
    compact = bank.recall("where are specs", detail="compact").text
    assert compact == f"{done.id} [spec] Specs live in docs/specs as Markdown. #docs"
    full = bank.recall("where are specs", detail="full").text
    assert full.splitlines()[0] == f"{done.id} [spec]"
    assert "tags: docs" in full and "used 1×" in full  # the first recall counted
    context = bank.context()
    assert context.text == (
        "## Project Memory\n"
        "What earlier sessions recorded about this project (Code Compass memory; "
        "`memory_recall` finds more).\n\n### Specs\n"
        "- Specs live in docs/specs as Markdown.\n"
    )
    assert bank.get([done.id])[0].access_count == 2  # the session context is not a use


def test_ttl_hides_unused_memories_and_prune_deletes_them(bank: MemoryBank, clock: Clock) -> None:
    unused = bank.remember(
        "The flaky upload test failed from a race in the temp dir.", type="error"
    )
    used = bank.remember(
        "Upload retries fail when S3 multipart parts are under 5 MB.", type="error"
    )
    bank.recall("S3 multipart upload parts", limit=1)
    assert bank.get([used.id])[0].access_count == 1
    clock.advance(31)  # errors live 30 days
    assert bank.status().expired == 2
    assert [h.memory.id for h in bank.recall("upload", include_expired=False).hits] == [used.id]
    dry = bank.prune(dry_run=True)
    assert [i.id for i in dry.deleted] == [unused.id] and dry.remaining == 2
    assert dry.reasons[unused.id] == "expired 2026-01-31T12:00:00.000+00:00, used 0×"
    done = bank.prune()
    assert [i.id for i in done.deleted] == [unused.id] and done.remaining == 1
    with pytest.raises(NotFoundError):
        bank.get([unused.id])


def test_decay_prunes_unused_memories_below_the_threshold(embedder: Embedder, clock: Clock) -> None:
    bank = make_bank(embedder, clock, decay=True, half_life_days=10, prune_threshold=0.3)
    kept = bank.remember("The monorepo uses pnpm workspaces for every package.")
    clock.advance(15)  # salience 0.35
    assert bank.prunable() == {}
    clock.advance(5)  # 20 days: 0.25
    assert bank.prunable() == {kept.id: "salience decayed to 0.25 (< 0.3), used 0×"}


def test_caps_evict_the_weakest_and_say_so(embedder: Embedder, clock: Clock) -> None:
    bank = make_bank(embedder, clock, max_per_type=2, max_per_project=3)
    weak = bank.remember("Pattern: services log JSON to stdout.", type="pattern", salience=0.2)
    strong = bank.remember("Pattern: every handler validates input with pydantic.", type="pattern")
    clock.advance(1)
    third = bank.remember(
        "Pattern: feature flags are read through the flags client only.", type="pattern"
    )
    assert third.evicted == [weak.id]
    clock.advance(1)
    bank.remember("Context: deploys go through ArgoCD from the main branch.")
    fifth = bank.remember("Spec: list endpoints paginate with opaque cursors.", type="spec")
    assert fifth.evicted == [strong.id]  # the project cap: the oldest of equal strength
    assert bank.status().total == 3


def test_export_then_import_is_the_identity(
    bank: MemoryBank, clock: Clock, embedder: Embedder
) -> None:
    bank.remember(
        "Decision: feature flags are read through the flags client.",
        type="decision",
        tags=["flags"],
    )
    bank.remember("Context: the API is served by uvicorn behind nginx.")
    clock.advance(2)
    bank.recall("how are flags read")
    exported = bank.export_lines()
    other = make_bank(embedder, clock)
    assert other.import_lines(exported) == {"imported": 2, "skipped": [], "refused": []}
    assert other.export_lines() == exported
    assert other.import_lines(exported)["skipped"] != []  # nothing twice
    found = other.recall("how are flags read")
    assert found.hits[0].memory.content.startswith("Decision: feature flags")


def test_a_malformed_import_writes_nothing(bank: MemoryBank) -> None:
    bank.remember("Context: staging runs on k3s.")
    lines = bank.export_lines()
    other = bank.export_lines()[:1] + ['{"id": "mem_1", "type": "nonsense"}']
    target = MemoryBank(open_memory().memories, bank.embedder, MemorySettings())
    with pytest.raises(InputError, match="Line 3"):
        target.import_lines(lines + other[1:])
    assert target.status().total == 0
    with pytest.raises(InputError, match="Not a Code Compass memory export"):
        target.import_lines(lines[1:])


def test_links_resolve_and_dangling_ones_are_reported(bank: MemoryBank) -> None:
    symbols = {"verify_token": "api/auth.py#verify_token", "Session": "api/db.py#Session"}
    gone: set[str] = set()

    def resolve(name: str) -> str:
        if name not in symbols:
            raise NotFoundError(f"Unknown symbol {name!r}.")
        return symbols[name]

    bank.code = CodeLinks(resolve=resolve, missing=lambda targets: gone & set(targets))
    done = bank.remember(
        "Tokens are checked in `verify_token` only; views never parse JWTs.",
        type="pattern",
        symbols=["Session"],
    )
    assert done.links == ["api/db.py#Session", "api/auth.py#verify_token"]
    with pytest.raises(NotFoundError):
        bank.remember("Caching goes through the cache helper.", symbols=["nope"])
    assert [n.id for n in bank.notes(["api/auth.py#verify_token"])] == [done.id]
    assert [h.memory.id for h in bank.recall("", symbols=["verify_token"]).hits] == [done.id]
    gone.add("api/auth.py#verify_token")
    assert bank.status().dangling == [{"id": done.id, "target": "api/auth.py#verify_token"}]
    assert bank.get([done.id])[0].dangling == ["api/auth.py#verify_token"]


def test_capture_keeps_rejects_and_refuses_like_an_automatic_write(bank: MemoryBank) -> None:
    proposals = [
        Proposal("decision", "We use PostgreSQL advisory locks for the job queue.", (), "r", 0),
        Proposal("error", "Fixed it.", (), "r", 1),
        Proposal("context", f"The deploy token is {GH_TOKEN} for the release bot.", (), "r", 2),
    ]
    dry = bank.keep_proposals(proposals, source="capture:rules", dry_run=True)
    assert [i.status for i in dry] == ["would_keep", "rejected", "refused"]
    assert bank.status().total == 0
    done = bank.keep_proposals(proposals, source="capture:rules")
    assert [i.status for i in done] == ["created", "rejected", "refused"]
    assert bank.status().by_source == {"capture:rules": 1}
    again = bank.keep_proposals(proposals[:1], source="capture:rules", dry_run=True)
    assert again[0].status == "duplicate"
    [stored] = bank.store.memories(MemoryQuery(ids=(done[0].id or "",)))
    assert stored.content_hash == memory_hash(proposals[0].content)
    assert stored.source == "capture:rules"
