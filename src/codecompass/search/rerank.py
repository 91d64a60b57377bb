"""Reranking: a model reorders the head of a ranking.

Two seams:

- `Reranker`, a protocol `retrieve` applies to the head of its candidates (chunk texts
  only), meant for a cross-encoder. None ships (offline), so it is unset by default.
- Listwise reranking by a chat model, after `retrieve` has returned: the query and the
  best `n` hits go into one prompt within a token budget (characters / 4), each hit shown
  as a short id (`c1`, `c2`, …), `path:start-end`, its symbol and the head of its snippet;
  the model replies with ids, best first. `build_prompt` writes the prompt,
  `apply_reply` reads the reply strictly (ids it does not know, and repeats, are ignored;
  hits it leaves out keep their order after the ones it names) and reorders the hits,
  noting each shown hit's rank before reranking in its `why`. Whoever asks the model
  (MCP sampling in the server, the `[llm]` endpoint through `rerank_with`) hands the
  reply to `apply_reply`; any failure leaves the order unchanged and says why
  (`RerankInfo.reason`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from codecompass.answer import CHARS_PER_TOKEN, ChatModel, approx_tokens
from codecompass.errors import CodeCompassError, ConfigError
from codecompass.schemas import Hit, RerankInfo
from codecompass.security.secrets import redact_secrets
from codecompass.settings import LLMSettings


class Reranker(Protocol):
    def rerank(self, query: str, texts: Sequence[str]) -> list[int]:
        """Indices into `texts`, most relevant first."""
        ...


By = Literal["sampling", "llm"]
SYSTEM_PROMPT = (
    "You rank code search results for a developer's query. Order the candidates from the "
    "one most likely to be the code the query is about (the code to read or to change) "
    "to the least likely. Reply with the candidates' ids only, best first, separated by "
    "spaces, for example: c4 c1 c9. No other text."
)
WHY_KEY = "rank_before_rerank"  # in each shown hit's `why`: its 1-based rank before
MIN_SHOWN = 2  # fewer candidates than this leave nothing to reorder
SNIPPET_MAX_CHARS = 800  # the head of one snippet, however large the budget
QUERY_SHARE = 4  # the query takes at most 1/QUERY_SHARE of the budget (pasted issues)
_ID = re.compile(r"(?<![A-Za-z0-9_])[cC](\d{1,4})(?![A-Za-z0-9_])")
_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


class RerankReplyError(ValueError):
    """The model's reply names none of the candidates."""


@dataclass(frozen=True, slots=True)
class RerankPrompt:
    """One prompt for the model, and how many hits (the head) it shows."""

    system: str
    user: str
    shown: int
    max_tokens: int  # cap on the reply: the ids, and a little room

    @property
    def tokens(self) -> int:
        return approx_tokens(self.system) + approx_tokens(self.user)


@dataclass(frozen=True, slots=True)
class Reranked:
    """The hits in their new order (or unchanged), and what happened."""

    hits: list[Hit]
    info: RerankInfo


# A model call: the prompt → (reply text, model name as reported).
AskModel = Callable[[RerankPrompt], tuple[str, str]]


def skipped(reason: str, by: By | None = None, prompt: RerankPrompt | None = None) -> RerankInfo:
    """The order is unchanged, because of `reason`."""
    return RerankInfo(
        used=False,
        by=by,
        candidates=prompt.shown if prompt else 0,
        prompt_tokens=prompt.tokens if prompt else 0,
        reason=reason,
    )


def build_prompt(query: str, hits: Sequence[Hit], budget_tokens: int) -> RerankPrompt:
    """The query and as many of `hits` (the head, in order) as fit `budget_tokens`,
    system prompt included. Every shown hit gets its header line; the characters left
    are shared among the snippets' heads (a short snippet leaves its share to the
    others), each cut at a line end. Hits whose headers no longer fit are left out, from
    the tail."""
    budget = budget_tokens * CHARS_PER_TOKEN - 2 * CHARS_PER_TOKEN  # the rounding of two parts
    query = " ".join(redact_secrets(query)[0].split())
    room_for_query = max(200, budget // QUERY_SHARE)
    if len(query) > room_for_query:
        query = query[: room_for_query - 1].rstrip() + "…"
    repos = {h.repo for h in hits}
    heads = [redact_secrets(_header(n, h, len(repos) > 1))[0] for n, h in enumerate(hits, 1)]
    frame = _frame(query, [])
    fixed = len(SYSTEM_PROMPT) + len(frame)
    shown = len(hits)
    while shown and fixed + sum(len(h) + 1 for h in heads[:shown]) > budget:
        shown -= 1
    heads = heads[:shown]
    left = budget - fixed - sum(len(h) + 1 for h in heads)
    bodies = _snippet_heads([redact_secrets(hits[i].snippet)[0] for i in range(shown)], left)
    blocks = [f"{head}\n{body}" if body else head for head, body in zip(heads, bodies, strict=True)]
    return RerankPrompt(SYSTEM_PROMPT, _frame(query, blocks), shown, max_tokens=8 * shown + 32)


def _header(n: int, hit: Hit, show_repo: bool) -> str:
    where = f"{hit.repo}/{hit.path}" if show_repo else hit.path
    name = f"{hit.kind} {hit.symbol}" if hit.symbol else hit.kind
    return f"c{n} {where}:{hit.start_line}-{hit.end_line} {name}"


def _frame(query: str, blocks: list[str]) -> str:
    # Each block is joined with a newline; `build_prompt` counts one per header.
    return (
        f"Query: {query}\n\nCandidates:\n"
        + "".join(block + "\n" for block in blocks)
        + "\nThe candidates' ids, best first:"
    )


def _snippet_heads(snippets: Sequence[str], room: int) -> list[str]:
    """The head of each snippet within an equal share of `room` characters (a shorter
    snippet leaves the rest of its share to the longer ones), cut at a line end."""
    texts = [_tidy(s) for s in snippets]
    wanted = [min(len(t), SNIPPET_MAX_CHARS) for t in texts]
    shares = [0] * len(texts)
    left = max(0, room)
    order = sorted(range(len(texts)), key=lambda i: wanted[i])
    for done, i in enumerate(order):
        fair = left // (len(texts) - done)
        shares[i] = min(wanted[i], fair)
        left -= shares[i]
    return [_cut(t, share) for t, share in zip(texts, shares, strict=True)]


def _tidy(snippet: str) -> str:
    """The snippet without blank lines, indented by four spaces under its header."""
    lines = [line.rstrip() for line in snippet.splitlines() if line.strip()]
    return "\n".join("    " + line for line in lines)


def _cut(text: str, share: int) -> str:
    """`text` within `share` characters (+1 for the newline that joins it): whole lines,
    or a first line cut short with `…`."""
    if len(text) + 1 <= share:
        return text
    if share < 12:
        return ""
    kept = text[: share - 1]
    if "\n" in kept:
        return kept.rsplit("\n", 1)[0]
    return kept[: share - 2] + "…"


def parse_reply(text: str, shown: int) -> list[int]:
    """The 0-based positions the reply names, in its order: ids `c1`…`c<shown>` only,
    each once; anything else is ignored. A reply that names none is an error."""
    text = _THINKING.sub(" ", text)
    picked: list[int] = []
    for match in _ID.finditer(text):
        n = int(match.group(1))
        if 1 <= n <= shown and n - 1 not in picked:
            picked.append(n - 1)
    if not picked:
        shown_text = " ".join(text.split())
        sample = shown_text[:80] + ("…" if len(shown_text) > 80 else "")
        raise RerankReplyError(f"the reply names none of the ids c1…c{shown}: {sample!r}")
    return picked


def reorder(hits: Sequence[Hit], picked: Sequence[int], shown: int) -> list[Hit]:
    """The shown head in the picked order, then the shown hits it left out (in their
    order), then the rest; each shown hit's `why` notes its rank before reranking."""
    chosen = set(picked)
    head = [*picked, *(i for i in range(shown) if i not in chosen)]
    moved = [hits[i].model_copy(update={"why": {**hits[i].why, WHY_KEY: i + 1}}) for i in head]
    return [*moved, *hits[shown:]]


def apply_reply(
    hits: Sequence[Hit], prompt: RerankPrompt, text: str | None, *, by: By, model: str | None
) -> Reranked:
    """The hits reordered as the reply says, or unchanged when it cannot be read."""
    if not text or not text.strip():
        return Reranked(list(hits), skipped(f"{by}: the model returned no text", by, prompt))
    try:
        picked = parse_reply(text, prompt.shown)
    except RerankReplyError as exc:
        return Reranked(list(hits), skipped(f"{by}: {exc}", by, prompt))
    info = RerankInfo(
        used=True, by=by, model=model, candidates=prompt.shown, prompt_tokens=prompt.tokens
    )
    return Reranked(reorder(hits, picked, prompt.shown), info)


def rerank_with(
    query: str,
    hits: Sequence[Hit],
    ask: AskModel,
    *,
    by: By,
    candidates: int,
    budget_tokens: int,
) -> Reranked:
    """Rerank the best `candidates` of `hits` with `ask`; a model that fails (an error, a
    timeout, a reply without ids) leaves the order unchanged, with the reason."""
    prompt = build_prompt(query, hits[:candidates], budget_tokens)
    idle = nothing_to_reorder(hits, prompt)
    if idle is not None:
        return Reranked(list(hits), skipped(idle, None, prompt))
    try:
        text, model = ask(prompt)
    except CodeCompassError as exc:
        return Reranked(list(hits), skipped(f"{by}: {exc}", by, prompt))
    return apply_reply(hits, prompt, text, by=by, model=model)


def nothing_to_reorder(hits: Sequence[Hit], prompt: RerankPrompt) -> str | None:
    """Why the model need not be asked (too few results, or a budget that shows too few
    of them), or None."""
    if len(hits) < MIN_SHOWN:
        return f"nothing to reorder ({len(hits)} result{'' if len(hits) == 1 else 's'})"
    if prompt.shown < MIN_SHOWN:
        return f"[llm] rerank_tokens fits only {prompt.shown} candidate(s); raise it"
    return None


NO_ENDPOINT = "no model: [llm] base_url is not set"


def rerank_by_endpoint(query: str, hits: Sequence[Hit], llm: LLMSettings) -> Reranked:
    """Rerank with the `[llm]` chat endpoint (within `rerank_timeout_s`), or say why not."""
    if not llm.base_url:
        return Reranked(list(hits), skipped(NO_ENDPOINT))
    try:
        chat = ChatModel.from_settings(llm, timeout=llm.rerank_timeout_s)
    except ConfigError as exc:
        return Reranked(list(hits), skipped(f"llm: {exc}", "llm"))
    return rerank_with(
        query,
        hits,
        lambda p: chat.complete(p.system, p.user, max_tokens=p.max_tokens),
        by="llm",
        candidates=llm.rerank_candidates,
        budget_tokens=llm.rerank_tokens,
    )


def require_endpoint(llm: LLMSettings, config_path: str) -> None:
    """Refuse an explicit request to rerank that no model can serve."""
    if not (llm.base_url and llm.model):
        raise ConfigError(
            "Reranking needs a chat model, and none is configured: set [llm] base_url and "
            f'model in {config_path} (e.g. base_url = "http://127.0.0.1:11434/v1", model = '
            '"qwen2.5-coder:7b"), or CODECOMPASS_LLM_BASE_URL and CODECOMPASS_LLM_MODEL; '
            "or leave reranking off."
        )
