"""Answers to questions about the code, built on evidence (`ask_code`, `codecompass ask`).

1. `gather` searches, keeps the results above `min_score`, numbers them and packs as many
   as fit a token budget into the context a model will read (tokens estimated as
   characters / 4); it also looks up graph edges between the evidences when the graph
   is available.
2. The answer then comes from, in order of availability: the MCP client's own model
   (sampling, driven by the MCP server), an OpenAI-compatible chat endpoint from
   `[llm]` (`ChatModel`), or `extractive_answer`, which only lists what the evidence
   shows and says so.
3. `finish` checks the citations: each `[n]` must name an evidence; a model answer that
   cites none gets the list of passages it was given appended.

No evidence, no claim: with nothing found, no model is asked.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from codecompass.errors import CodeCompassError, ConfigError, InputError, LLMError
from codecompass.indexing.chunk import ELISION
from codecompass.indexing.rules import collapse
from codecompass.models import SHOWN_SIGNATURE_CHARS, SymbolRecord
from codecompass.preamble import COMMENT_LINE, preamble_end
from codecompass.schemas import Answer, Evidence, GraphResult, Hit, RerankInfo
from codecompass.settings import LLMSettings

CHARS_PER_TOKEN = 4
MAX_TOP_K = 50
MAX_LINKS = 12
NO_EVIDENCE = (
    "No evidence found in the index for this question, so no answer is given. Try other "
    "words, an identifier or a path, or widen the scope."
)
SYSTEM_PROMPT = (
    "You answer questions about a codebase using only the numbered evidence you are given. "
    "Cite the evidence for every claim as [n], right after the claim. If the evidence does "
    "not answer the question, say so plainly instead of guessing. Be concise."
)
EXTRACTIVE_HEADER = (
    "Extractive answer (no language model was used): the indexed passages that best match "
    "the question, strongest first."
)
_CITATION = re.compile(r"\[(\d{1,3})\]")
_TRAILING_COMMENT = re.compile(r"\s+(?:#|//)(?:\s|$).*$")
MAX_SIGNATURE_LINES = 12  # a signature's lines joined in an extractive answer
# What `graph_links` asks of the graph: the dependencies of a node (within a repository).
Dependencies = Callable[[str, str], GraphResult]


def approx_tokens(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


@dataclass(frozen=True, slots=True)
class Found:
    """The hits for a question, best first, before they are packed into a context."""

    hits: list[Hit]
    generation: int | None = None  # of the index the hits came from
    stale: set[str] = field(default_factory=set)  # files ("repo/path") changed on disk since
    coverage: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Gathered:
    """The evidence for one question, and the context built from it."""

    query: str
    evidences: list[Evidence]  # the ones that fit the budget, numbered from 1
    total_matches: int  # results above min_score, before the budget cut
    context: str
    links: list[str] = field(default_factory=list)  # graph edges between evidences, cited
    generation: int | None = None  # of the index the evidence came from
    stale: list[str] = field(default_factory=list)  # cited files changed on disk since
    coverage: dict[str, float] = field(default_factory=dict)  # share each signal saw
    rerank: RerankInfo | None = None  # when the hits were reranked (or that was asked)
    # evidence number → the symbol it is part of, for its signature and doc (an evidence
    # may be a later window of a long function, whose text starts mid-body)
    definitions: dict[int, SymbolRecord] = field(default_factory=dict)


def check_limits(top_k: int, budget_tokens: int) -> None:
    if not 1 <= top_k <= MAX_TOP_K:
        raise InputError(f"top_k must be between 1 and {MAX_TOP_K} (got {top_k}).")
    if budget_tokens < 100:
        raise InputError(f"The context budget must be at least 100 tokens (got {budget_tokens}).")


def gather(
    query: str,
    hits: Sequence[Hit],
    *,
    top_k: int = 8,
    min_score: float = 0.0,
    budget_tokens: int = 3000,
    dependencies: Dependencies | None = None,
    ordered: bool = False,
) -> Gathered:
    """Keep the best hits above `min_score`, number them and pack as many as fit the
    token budget into the context a model will read. `ordered`: the hits come best
    first already (reranked), so they are not sorted by score."""
    check_limits(top_k, budget_tokens)
    ranked = list(hits) if ordered else sorted(hits, key=lambda h: -h.score)
    kept = [h for h in ranked if h.score >= min_score][:top_k]
    evidences: list[Evidence] = []
    blocks: list[str] = []
    used = 0
    for hit in kept:
        n = len(evidences) + 1
        name = f" · {hit.kind} {hit.symbol}" if hit.symbol else f" · {hit.kind}"
        head = f"[{n}] {hit.repo}/{hit.path}:{hit.start_line}-{hit.end_line}{name}\n"
        snippet = hit.snippet
        cost = approx_tokens(head + snippet) + 4
        if used + cost > budget_tokens:
            room = (budget_tokens - used - approx_tokens(head) - 4) * CHARS_PER_TOKEN
            if evidences or room < 200:
                break
            snippet = snippet[:room].rsplit("\n", 1)[0] + "\n…"
            cost = approx_tokens(head + snippet) + 4
        evidences.append(Evidence(**{**hit.model_dump(), "snippet": snippet, "n": n}))
        blocks.append(f"{head}```{hit.language}\n{snippet}\n```")
        used += cost
    links = graph_links(dependencies, evidences) if dependencies is not None else []
    return Gathered(query.strip(), evidences, len(kept), "\n\n".join(blocks), links)


def graph_links(dependencies: Dependencies, evidences: Sequence[Evidence]) -> list[str]:
    """Edges of the code graph between evidences, as cited sentences."""
    by_node = {f"{e.repo}/{e.path}#{e.symbol}": e for e in evidences if e.symbol}
    # (source, relation, target) → the best confidence; another call site of the same
    # pair says nothing new.
    best: dict[tuple[int, str, int], float] = {}
    for node, evidence in by_node.items():
        if len(best) >= MAX_LINKS:
            break
        try:
            result = dependencies(node, evidence.repo)
        except CodeCompassError:
            continue
        for edge in result.edges:
            target = by_node.get(edge.target)
            if target is None or target is evidence:
                continue
            key = (evidence.n, edge.type.lower(), target.n)
            if key not in best and len(best) >= MAX_LINKS:
                continue
            best[key] = max(best.get(key, 0.0), edge.confidence)
    symbols = {e.n: e.symbol for e in by_node.values()}
    return [
        f"`{symbols[source]}` {relation} `{symbols[target]}` (confidence {confidence:.1f}) "
        f"[{source}][{target}]"
        for (source, relation, target), confidence in best.items()
    ]


def build_prompt(gathered: Gathered) -> tuple[str, str]:
    """(system prompt, user message) asking a model to answer from the evidence only."""
    parts = [f"Question: {gathered.query}", "", "Evidence:", gathered.context]
    if gathered.links:
        parts += ["", "Known connections in the code graph:", *gathered.links]
    parts += ["", "Answer the question from this evidence, citing [n] after each claim."]
    return SYSTEM_PROMPT, "\n".join(parts)


def extractive_answer(gathered: Gathered) -> str:
    """Which symbols match, where they are, and how they connect; each line cites [n]."""
    if not gathered.evidences:
        return NO_EVIDENCE
    lines = [EXTRACTIVE_HEADER, ""]
    for e in gathered.evidences:
        what = f"`{e.symbol}` ({e.kind})" if e.symbol else f"a {e.kind} passage"
        definition = gathered.definitions.get(e.n)
        if definition is not None and not e.start_line <= definition.start_line <= e.end_line:
            # a later window of a long body: its signature is not in the cited lines
            span = f"lines {definition.start_line}-{definition.end_line}"
            what = f"`{e.symbol}` ({e.kind} of {span})"
        gist = _definition_gist(definition) if definition else _gist(e.snippet)
        tail = f": {gist}" if gist else ""
        lines.append(f"- {what} in {e.location}{tail} [{e.n}]")
    if gathered.links:
        lines += ["", "How they connect:"] + [f"- {link}" for link in gathered.links]
    return "\n".join(lines)


def _definition_gist(definition: SymbolRecord) -> str:
    """A symbol's signature, and the first line of its doc."""
    head = definition.short_signature() or f"{definition.kind} {definition.name}"
    doc = definition.doc.strip().split("\n", 1)[0].strip()
    return f"{head} — {doc[:SHOWN_SIGNATURE_CHARS]}" if doc else head


def _gist(snippet: str) -> str:
    """The signature, and its first doc line when there is one.

    Comments above the code (Go's, JSDoc, Rust's `///`, Python's `#`) are its doc, not
    its signature; a signature's lines are joined while a parenthesis or bracket is
    open, without their trailing comments."""
    meaningful = [
        line.strip()
        for line in snippet.splitlines()
        if line.strip()
        and not line.strip().startswith(("@", "…", "#["))
        and line.strip() != ELISION  # a module passage's skipped lines
    ]
    lead = _comments_at(meaningful, 0)
    code = _past_preamble(meaningful, lead)
    if lead < code < len(meaningful):
        # Comments above the imports are the file's header (a licence), not a doc.
        meaningful = meaningful[code:]
        lead = _comments_at(meaningful, 0)
    if lead == len(meaningful):  # comments only: show the first
        return meaningful[0][:SHOWN_SIGNATURE_CHARS] if meaningful else ""
    taken, depth = lead, 0
    parts: list[str] = []
    while taken < min(len(meaningful), lead + MAX_SIGNATURE_LINES):
        line = meaningful[taken]
        taken += 1
        if COMMENT_LINE.match(line):
            continue
        line = _without_comment(line)
        parts.append(line)
        # Parentheses and brackets only: a brace opens a body as often as a literal.
        depth += line.count("(") + line.count("[") - line.count(")") - line.count("]")
        if depth <= 0:
            break
    head = collapse(" ".join(parts))[:SHOWN_SIGNATURE_CHARS]
    # The doc: comments above the code, else a docstring or comment just below its
    # signature.
    for line in meaningful[:lead] + meaningful[taken : taken + 2]:
        doc = line.strip("\"'#/*! ").strip()
        if line.startswith(('"""', "'''", "#", "//", "/*", "*")) and doc:
            return f"{head} — {doc[:SHOWN_SIGNATURE_CHARS]}"
    return head


def _comments_at(lines: list[str], start: int) -> int:
    """The index of the first line from ``start`` on that is not a comment."""
    while start < len(lines) and COMMENT_LINE.match(lines[start]):
        start += 1
    return start


def _past_preamble(lines: list[str], start: int) -> int:
    """The index of the first line after the imports starting at ``start``
    (`preamble_end`); ``start`` when nothing but imports follows."""
    end = preamble_end(lines, start)
    return end if end < len(lines) else start


def _without_comment(line: str) -> str:
    """A line without a trailing `#` or `//` comment; kept whole when a quote comes
    before the marker (it may sit inside a string)."""
    found = _TRAILING_COMMENT.search(line)
    if found is None or any(q in line[: found.start()] for q in "\"'`"):
        return line
    return line[: found.start()]


def finish(
    gathered: Gathered,
    text: str,
    mode: str,
    model: str | None,
    provider_error: str | None = None,
) -> Answer:
    """The final answer: citations checked against the evidences."""
    count = len(gathered.evidences)
    cited = sorted({int(m) for m in _CITATION.findall(text) if 1 <= int(m) <= count})
    text = text.strip()
    if mode in ("sampling", "llm") and not cited and gathered.evidences:
        given = "; ".join(f"[{e.n}] {e.location}" for e in gathered.evidences)
        text += f"\n\n(The model cited no evidence. The passages it was given: {given}.)"
    return Answer(
        answer=text,
        mode=mode,  # type: ignore[arg-type]
        model=model,
        evidences=list(gathered.evidences),
        total_matches=gathered.total_matches,
        cited=cited,
        provider_error=provider_error,
        generation=gathered.generation,
        stale=gathered.stale,
        coverage=gathered.coverage,
        rerank=gathered.rerank,
    )


def answer_locally(gathered: Gathered, llm: LLMSettings) -> Answer:
    """Answer with the configured chat endpoint, else (or when it fails) extractively."""
    if not gathered.evidences:
        return finish(gathered, NO_EVIDENCE, "none", None)
    provider_error = None
    if llm.base_url:
        try:
            chat = ChatModel.from_settings(llm)
            system, user = build_prompt(gathered)
            text, model = chat.complete(system, user, max_tokens=llm.max_tokens)
            return finish(gathered, text, "llm", model)
        except (LLMError, ConfigError) as exc:
            provider_error = f"llm: {exc}"
    return finish(gathered, extractive_answer(gathered), "extractive", None, provider_error)


class ChatModel:
    """POSTs to `{base_url}/chat/completions` (OpenAI, Ollama, llama.cpp, vLLM, LM Studio)."""

    def __init__(
        self, base_url: str, model: str, api_key: str | None = None, timeout: float = 60.0
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(
                f"[llm] base_url {base_url!r} is not an http(s) URL; give the API root, "
                "such as http://127.0.0.1:11434/v1"
            )
        if not model:
            raise ConfigError("[llm] model is empty; name the chat model to use.")
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self._api_key = api_key
        self._timeout = timeout

    @classmethod
    def from_settings(cls, llm: LLMSettings, *, timeout: float | None = None) -> ChatModel:
        """The `[llm]` endpoint; `timeout` replaces `timeout_s` (reranking has its own)."""
        key = os.environ.get(llm.api_key_env) if llm.api_key_env else None
        if llm.api_key_env and not key:
            raise ConfigError(f"[llm] api_key_env names ${llm.api_key_env}, which is not set.")
        return cls(llm.base_url, llm.model, key, llm.timeout_s if timeout is None else timeout)

    def complete(self, system: str, user: str, *, max_tokens: int) -> tuple[str, str]:
        """(answer text, model name as the server reports it)."""
        body = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": system},
                {"role": "user", "content": user},
            ],
            "max_tokens": max_tokens,
            "temperature": 0,
            "stream": False,
        }
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        import urllib.error  # costs 40 ms: only when a request is made
        import urllib.request

        request = urllib.request.Request(
            self.url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self._timeout) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read(300).decode("utf-8", "replace").strip()
            raise LLMError(
                f"Chat request to {self.url} failed with HTTP {exc.code} {exc.reason}: "
                f"{detail or '(empty body)'}. Check [llm] model and api_key_env."
            ) from exc
        except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise LLMError(
                f"Cannot reach the chat model at {self.url}: {reason}. Check that it is "
                f"running and that [llm] base_url is right (timeout {self._timeout:g} s)."
            ) from exc
        try:
            payload = json.loads(raw)
            text = payload["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise LLMError(
                f"Unexpected response from {self.url}: expected the OpenAI chat format "
                '{"choices": [{"message": {"content": "..."}}]}.'
            ) from exc
        if not isinstance(text, str) or not text.strip():
            raise LLMError(f"The chat model at {self.url} returned an empty answer.")
        return text, str(payload.get("model") or self.model)
