"""The MCP server: Code Compass's tools for AI agents, over stdio or streamable HTTP.

Built on the official `mcp` SDK (`MCPServer`). Every tool is read-only and thin: parse
the typed arguments, call the engine (in a worker thread, one call at a time), return a
pydantic model as structured content (its JSON also as text). Failures come back as
tool errors whose structured content is `{"error": {"code", "message", "tool"}}`, the
message saying what to fix; codes: not_indexed, unknown_repo, access_denied, not_found,
out_of_range, ambiguous_symbol, invalid_argument, invalid_arguments, unknown_tool,
provider_error, model_mismatch, config_error, data_dir, index_damaged, internal_error.
An ambiguous or unknown symbol adds `candidates` (best first) and a `hint` (the call to
make next).

The engine opens once per process, in the server's lifespan (streamable HTTP enters it
once for all sessions). Searches re-read the vector table and SQLite on every call, so
`codecompass index` running next to the server is seen at once; with no index yet the
tools answer `not_indexed` until one appears, without a restart.

A middleware around `tools/call` writes the audit record of every call (see
`codecompass.audit`), including calls that never reach a tool (unknown tool, invalid
arguments), and gives those errors the same structured shape. The HTTP app adds
`/metrics` (Prometheus) and `/healthz`, and checks a bearer token when one is set; the
token is mandatory off loopback (`serve` refuses to start otherwise).
"""

# No `from __future__ import annotations`: the SDK reads the tools' annotations at run time.
import contextvars
import json
import logging
import re
import signal
import sys
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, replace
from typing import Annotated, Any, Literal, TypeVar

import anyio
from mcp.server.context import ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Resolve, Sample
from mcp.server.mcpserver.tools import Tool
from mcp.server.stdio import stdio_server
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from mcp_types import (
    INVALID_REQUEST,
    PARSE_ERROR,
    CallToolResult,
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    ErrorData,
    JSONRPCError,
    SamplingMessage,
    TextContent,
    ToolAnnotations,
)
from mcp_types.version import is_version_at_least
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.types import ASGIApp

from codecompass.answer import Found, Gathered, build_prompt, finish
from codecompass.answer import answer_locally as _answer_locally
from codecompass.audit import CallRecord
from codecompass.engine import Engine, parse_location
from codecompass.errors import (
    CodeCompassError,
    NotIndexedError,
    OutOfRangeError,
)
from codecompass.memory.capture import capture_prompt, read_transcript
from codecompass.models import ChunkFilter
from codecompass.protocols import Embedder
from codecompass.schemas import (
    AskMeta,
    AskResult,
    CaptureResult,
    FileContent,
    GitBlameResult,
    GitLogResult,
    GraphResult,
    Hit,
    IndexStatus,
    MemoryItem,
    Overview,
    RecallResult,
    RememberResult,
    RepoStatus,
    RerankInfo,
    SearchCodeResult,
    SymbolMatches,
)
from codecompass.search.rerank import (
    Reranked,
    RerankPrompt,
    apply_reply,
    nothing_to_reorder,
    rerank_by_endpoint,
    skipped,
)
from codecompass.search.rerank import build_prompt as build_rerank_prompt
from codecompass.search.results import brief_why
from codecompass.search.retrieve import SearchResult
from codecompass.security.access import Access
from codecompass.service import (
    LOCAL,
    PRINCIPAL_KEY,
    BearerTokenAuth,
    Service,
    check_http_binding,
    error_code,
    redact_all,
    run_http,
)
from codecompass.settings import Settings
from codecompass.storage import damage_of, index_exists

log = logging.getLogger("codecompass.mcp")

SERVER_NAME = "codecompass"
INSTRUCTIONS = (
    "Code Compass searches the indexed repositories and answers with evidence "
    "(repo, path, lines, snippet). Start with search_code or ask_code, confirm with "
    "open_file; to find where a bug or change goes, pass the whole issue or traceback "
    "to search_code with view symbols. Use find_symbol and the graph tools for "
    "structure. Project memory: "
    "memory_recall before deciding, memory_remember for a decision, pattern, fixed error, "
    "spec or context worth keeping (never secrets). Only the memory_remember, "
    "memory_forget and memory_capture tools write."
)
MAX_TOP_K = 50
MAX_DEPTH = 5
MAX_GRAPH_NODES = 200
DEFAULT_GRAPH_NODES = 50  # 200 had made a default walk of one HTTPie function 36 KB
READ_ONLY = ToolAnnotations(read_only_hint=True)
_SAMPLING_VERSION = "2026-07-28"

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)

_CALL: contextvars.ContextVar[CallRecord | None] = contextvars.ContextVar(
    "codecompass_call", default=None
)
# The principal of the call being served (see codecompass.service).
_PRINCIPAL: contextvars.ContextVar[str] = contextvars.ContextVar(
    "codecompass_principal", default=LOCAL
)


def _current_call(tool: str) -> CallRecord:
    """The audit record of the call being served (a fresh one outside the middleware)."""
    rec = _CALL.get()
    return rec if rec is not None else CallRecord(tool=tool)


class SearchFilters(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt filter must not pass unseen

    repo: str | None = Field(default=None, description="Repository name.")
    path_prefix: str | None = Field(default=None, description="Only paths starting with this.")
    language: str | None = Field(default=None, description="e.g. python, typescript.")
    kind: str | None = Field(default=None, description="e.g. function, method, class, section.")

    def where(self) -> ChunkFilter:
        return ChunkFilter(
            repo=self.repo, path_prefix=self.path_prefix, language=self.language, kind=self.kind
        )


# -- errors -------------------------------------------------------------------------
def error_result(
    tool: str, code: str, message: str, offered: CodeCompassError | None = None
) -> CallToolResult:
    """The tool error; an error that offers candidates (an ambiguous or unknown symbol)
    adds them, best first, and its hint (the next call to make)."""
    error: dict[str, Any] = {"code": code, "message": message, "tool": tool}
    if offered is not None and offered.candidates:
        error["candidates"] = [c.as_dict() for c in offered.candidates]
        if offered.hint is not None:
            error["hint"] = offered.hint.mcp
    return CallToolResult(
        content=[TextContent(type="text", text=f"{code}: {message}")],
        structured_content={"error": error},
        is_error=True,
    )


def ok_result(model: BaseModel) -> CallToolResult:
    """The result as structured content, and as text: its JSON, or the one field a model
    names as what to read (`Overview.text`, the map; `RecallResult.text` and how many
    memories its budget left out), when that field holds anything."""
    data = redact_all(model.model_dump(mode="json"))
    field = getattr(model, "text_block", None)
    if field and data[field]:
        text = str(data[field])
        if data.get("omitted"):
            text += f"\n({data['omitted']} more matched; raise budget_tokens or limit to see them.)"
    else:
        text = json.dumps(data, ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


# -- server state -------------------------------------------------------------------
class ServerState(Service):
    """The service as the MCP tools reach it: the principal comes from the call being
    served, and each tool's result or error is shaped as a tool result."""

    def access(self) -> Access:
        """What the principal of the call being served may read."""
        return self.access_of(_PRINCIPAL.get())

    async def run(self, work: Callable[[Engine], T]) -> T:
        return await self.run_as(self.access(), work)

    async def serve(
        self,
        tool: str,
        work: Callable[[Engine], M],
        count: Callable[[M], tuple[int | None, int | None]] = lambda _: (None, None),
    ) -> CallToolResult:
        """Run `work`, fill the audit record, and shape the result or the error."""
        rec = _current_call(tool)
        try:
            model = await self.run(work)
        except CodeCompassError as exc:
            code = error_code(exc)
            rec.fail(code, exc.for_mcp())
            if code == "provider_error":
                rec.provider_error = f"embedder: {exc}"
            return error_result(tool, code, exc.for_mcp(), exc)
        except Exception as exc:
            damage = damage_of(exc)
            if damage is not None:
                rec.fail(damage.code, damage.for_mcp())
                return error_result(tool, damage.code, damage.for_mcp())
            log.exception("%s failed", tool)
            message = "Unexpected server error; the server log has the details."
            rec.fail("internal_error", message)
            return error_result(tool, "internal_error", message)
        rec.result_count, rec.evidence_count = count(model)
        return ok_result(model)


def _state(ctx: Context[Any, Any]) -> ServerState:
    state: ServerState = ctx.request_context.lifespan_context
    return state


# -- audit middleware ---------------------------------------------------------------
# pydantic's `[type=…, input_value=['a'], input_type=list]` and its link
_PYDANTIC_NOISE = re.compile(
    r"\s*\[type=[^\n]*?input_type=[\w.]+\]|\n\s*For further information visit \S+"
)


def _client_name(ctx: ServerRequestContext[Any, Any]) -> str | None:
    params = ctx.session.client_params
    if params is None:
        return None
    info = params.client_info
    return f"{info.name}/{info.version}" if info.version else info.name


def _principal_of(ctx: ServerRequestContext[Any, Any]) -> str:
    """The principal BearerTokenAuth found for the HTTP request (LOCAL otherwise)."""
    request = ctx.request
    scope = getattr(request, "scope", None)
    if isinstance(scope, dict):
        found = scope.get("state", {}).get(PRINCIPAL_KEY)
        if isinstance(found, str):
            return found
    return LOCAL


MAX_TOOL_NAME = 64  # characters of a name no tool has, kept in the audit and echoed
# Renamed so that every tool says a line range and a count the same way (`start_line`,
# `end_line`, `limit`); clients written for the old names keep working.
RENAMED_ARGUMENTS = {
    "git_blame": {"start": "start_line", "end": "end_line"},
    "git_log": {"max": "limit"},
}


def _rename_old_arguments(tool: str, params: Any) -> None:
    arguments = params.get("arguments") if isinstance(params, dict) else None
    if not isinstance(arguments, dict):
        return
    for old, new in RENAMED_ARGUMENTS.get(tool, {}).items():
        if old in arguments and new not in arguments:
            arguments[new] = arguments.pop(old)


def _drop_null_optionals(params: Any, required: frozenset[str]) -> None:
    """An optional argument given `null` takes its default: clients in OpenAI's strict mode
    send every argument, `null` for those they do not use."""
    arguments = params.get("arguments") if isinstance(params, dict) else None
    if not isinstance(arguments, dict):
        return
    for name in [n for n, value in arguments.items() if value is None and n not in required]:
        del arguments[name]


def _unknown_arguments(params: Any, allowed: frozenset[str]) -> list[str]:
    arguments = params.get("arguments") if isinstance(params, dict) else None
    return sorted(set(arguments) - allowed) if isinstance(arguments, dict) else []


def audit_middleware(state: ServerState, schemas: dict[str, dict[str, Any]]) -> Any:
    """`schemas` maps each tool to its input schema: an argument a tool does not take is
    refused (the SDK would drop it silently, and a misspelt `k` would quietly become the
    default `top_k`)."""
    tools = {name: frozenset(schema.get("properties", {})) for name, schema in schemas.items()}
    required = {name: frozenset(schema.get("required", [])) for name, schema in schemas.items()}

    async def middleware(
        ctx: ServerRequestContext[Any, Any],
        call_next: Callable[[ServerRequestContext[Any, Any]], Awaitable[Any]],
    ) -> Any:
        if ctx.method != "tools/call":
            return await call_next(ctx)
        name = str((ctx.params or {}).get("name", ""))
        if name not in tools:
            # A name the client made up is recorded (audit, metrics) and echoed cut short:
            # a 99 KB name had added 600 KB to every later `/metrics`.
            name = name[:MAX_TOOL_NAME] + ("…" if len(name) > MAX_TOOL_NAME else "")
        principal = _principal_of(ctx)
        rec = CallRecord(
            tool=name, client=_client_name(ctx), principal=principal, transport=state.transport
        )
        _rename_old_arguments(name, ctx.params)
        _drop_null_optionals(ctx.params, required.get(name, frozenset()))
        unknown = _unknown_arguments(ctx.params, tools.get(name, frozenset()))
        if name in tools and unknown:
            renamed = RENAMED_ARGUMENTS.get(name, {})
            twice = [
                f"{old!r} (the old name of {renamed[old]!r})" for old in unknown if old in renamed
            ]
            message = (
                f"{name} was given both {', '.join(twice)}; give one."
                if twice
                else f"{name} takes no argument {', '.join(map(repr, unknown))}; its arguments "
                f"are: {', '.join(sorted(tools[name]))}."
            )
            rec.fail("invalid_arguments", message)
            await state.write_audit(rec)
            return {
                "content": [{"type": "text", "text": f"invalid_arguments: {message}"}],
                "structuredContent": {
                    "error": {"code": "invalid_arguments", "message": message, "tool": name}
                },
                "isError": True,
                "resultType": "complete",
            }
        token = _CALL.set(rec)
        principal_token = _PRINCIPAL.set(principal)
        try:
            result = await call_next(ctx)
        except Exception as exc:
            rec.fail("protocol_error", str(exc) or type(exc).__name__)
            await state.write_audit(rec)
            raise
        finally:
            _CALL.reset(token)
            _PRINCIPAL.reset(principal_token)
        if not isinstance(result, dict):
            return result
        if result.get("resultType") == "input_required":
            return result  # a sampling round trip: the final round is the call recorded
        if result.get("isError") and rec.status == "ok":
            # Refused by the SDK before or around the tool: unknown tool, arguments that
            # fail the schema, or a crash (whose text stays in the server's log).
            text = " ".join(
                str(block.get("text", "")) for block in result.get("content", [])
            ).strip()
            if name not in tools:
                code = "unknown_tool"
                message = f"Unknown tool {name!r}; available: {', '.join(sorted(tools))}."
            elif "validation error" in text:
                code = "invalid_arguments"
                message = _PYDANTIC_NOISE.sub("", text)
                message = message.replace(f"Error executing tool {name}: ", "")
                message = message.replace(f"{name}Arguments", name)  # the SDK's model
                message += "\nFix the arguments to match the tool's input schema."
            else:
                log.error("%s failed: %s", name, text)
                code = "internal_error"
                message = "Unexpected server error; the server log has the details."
            rec.fail(code, message)
            result = {
                **result,
                "content": [{"type": "text", "text": f"{code}: {message}"}],
                "structuredContent": {"error": {"code": code, "message": message, "tool": name}},
            }
        await state.write_audit(rec)
        return result

    return middleware


# -- tools --------------------------------------------------------------------------
def compact_schema(schema: Any, *, output: bool = False) -> Any:
    """The same JSON Schema in fewer tokens (tool definitions cost the agent tokens).

    Drops pydantic's generated `title`s and `"default": null`, writes `anyOf: [{type: T},
    {type: null}]` as `type: [T, "null"]` (null joining an `enum`), and for output schemas
    drops `required`, `default`s and `additionalProperties` (every field is always present;
    nullable ones say so in their type) and the models' docstrings (written for readers of
    the code)."""
    if isinstance(schema, dict) and "$defs" in schema:
        schema = _inline_single_refs(schema)
    if isinstance(schema, list):
        return [compact_schema(item, output=output) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "default" and value is None:
            continue
        if output and key in ("required", "default", "additionalProperties", "description"):
            continue
        if key in ("properties", "$defs"):
            out[key] = {name: compact_schema(sub, output=output) for name, sub in value.items()}
        else:
            out[key] = compact_schema(value, output=output)
    options = out.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        other = next(o for o in options if o != {"type": "null"})
        if isinstance(other.get("type"), str):
            del out["anyOf"]
            out = {**other, **out, "type": [other["type"], "null"]}
            if isinstance(other.get("enum"), list):  # null must pass the enum as well
                out["enum"] = [*other["enum"], None]
    return out


def _inline_single_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with each definition referred to once (and not by itself) written in its
    place."""
    defs: dict[str, Any] = schema["$defs"]
    text = json.dumps(schema)
    once = {
        name
        for name, sub in defs.items()
        if text.count(f'"#/$defs/{name}"') == 1 and f'"#/$defs/{name}"' not in json.dumps(sub)
    }

    def inline(node: Any) -> Any:
        if isinstance(node, list):
            return [inline(item) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref", "")
        if ref.startswith("#/$defs/") and ref[8:] in once:
            return inline(defs[ref[8:]])
        return {key: inline(value) for key, value in node.items() if key != "$defs"}

    out: dict[str, Any] = inline(schema)
    kept = {name: inline(sub) for name, sub in defs.items() if name not in once}
    return {**out, "$defs": kept} if kept else out


Repo = Annotated[str | None, Field(description="Repository, if several.")]
SymbolArg = Annotated[str, Field(description="Name, module.func, path:line or node id.")]
Depth = Annotated[int, Field(strict=True, ge=1, le=MAX_DEPTH, description="Hops to follow.")]
MinConfidence = Annotated[
    float, Field(ge=0.0, le=1.0, description="Drop edges less certain than this.")
]
Limit = Annotated[int, Field(strict=True, ge=1, le=100, description="Most results to return.")]
EdgeTypes = Annotated[
    list[str] | None, Field(description="Edge types, e.g. calls, imports, extends.")
]


# -- the client's own model (sampling), and reranking with it ------------------------------
@dataclass(frozen=True, slots=True)
class _Sampled:
    """A sampling attempt made over the back-channel (handshake-era clients)."""

    result: CreateMessageResult | None = None
    error: str | None = None


def _sampling_offered(ctx: Context[ServerState, Any]) -> bool:
    caps = ctx.client_capabilities
    return bool(_state(ctx).settings.llm.use_sampling and caps and caps.sampling)


async def sample(
    ctx: Context[ServerState, Any],
    system: str,
    user: str,
    *,
    max_tokens: int | None = None,
    timeout: float | None = None,
) -> Sample | _Sampled | None:
    """The client's own model on this prompt, when it offers sampling (and sampling is
    on): a `Sample` for the SDK to run, or a back-channel attempt's outcome. `max_tokens`
    caps the reply (default `[llm] max_tokens`); `timeout` bounds a back-channel request
    (inside an `InputRequiredResult` the client runs the model between two rounds)."""
    if not _sampling_offered(ctx):
        return None
    messages = [SamplingMessage(role="user", content=TextContent(type="text", text=user))]
    tokens = _state(ctx).settings.llm.max_tokens if max_tokens is None else max_tokens
    if is_version_at_least(ctx.protocol_version or "", _SAMPLING_VERSION):
        return Sample(messages, max_tokens=tokens, system_prompt=system, temperature=0)
    # Handshake-era clients: ask over the back-channel ourselves, so that a refusal
    # falls back to the next answer path instead of failing the call.
    request = CreateMessageRequest(
        params=CreateMessageRequestParams(
            messages=messages, max_tokens=tokens, system_prompt=system, temperature=0
        )
    )
    try:
        with anyio.fail_after(timeout):
            result = await ctx.session.send_request(
                request,
                CreateMessageResult,
                metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
            )
    except TimeoutError:
        return _Sampled(error=f"sampling: no reply within {timeout:g} s")
    except Exception as exc:
        return _Sampled(error=f"sampling: {exc}")
    return _Sampled(result=result)


Sampled = CreateMessageResult | _Sampled | None  # what a sampling resolver hands on


def _reply(sampled: CreateMessageResult | _Sampled) -> tuple[str | None, str | None, str | None]:
    """(text, model, error) of a sampling outcome."""
    result = sampled.result if isinstance(sampled, _Sampled) else sampled
    if result is None:
        return None, None, (sampled.error if isinstance(sampled, _Sampled) else None)
    text = result.content.text if isinstance(result.content, TextContent) else None
    return text, result.model, None


def _rerank_prompt(ctx: Context[ServerState, Any], query: str, hits: list[Hit]) -> RerankPrompt:
    llm = _state(ctx).settings.llm
    return build_rerank_prompt(query, hits[: llm.rerank_candidates], llm.rerank_tokens)


async def sample_rerank(
    ctx: Context[ServerState, Any], query: str, hits: list[Hit]
) -> Sample | _Sampled | None:
    """Ask the client's model to rerank the best hits, when it offers sampling and there
    is something to reorder."""
    prompt = _rerank_prompt(ctx, query, hits)
    if nothing_to_reorder(hits, prompt) is not None:
        return None
    timeout = _state(ctx).settings.llm.rerank_timeout_s
    return await sample(
        ctx, prompt.system, prompt.user, max_tokens=prompt.max_tokens, timeout=timeout
    )


async def rerank_hits(
    ctx: Context[ServerState, Any], query: str, hits: list[Hit], sampled: Sampled
) -> Reranked:
    """The hits reordered by the client's reply when sampling was asked, else by the
    `[llm]` endpoint when one is set, else unchanged; with what happened."""
    llm = _state(ctx).settings.llm
    prompt = _rerank_prompt(ctx, query, hits)
    idle = nothing_to_reorder(hits, prompt)
    if idle is not None:
        return Reranked(hits, skipped(idle, None, prompt))
    if sampled is not None:
        text, model, error = _reply(sampled)
        if error is not None:
            return Reranked(hits, skipped(error, "sampling", prompt))
        return apply_reply(hits, prompt, text, by="sampling", model=model)
    if llm.base_url:
        return await anyio.to_thread.run_sync(lambda: rerank_by_endpoint(query, hits, llm))
    why = "the client offers no sampling" if llm.use_sampling else "[llm] use_sampling is off"
    return Reranked(hits, skipped(f"no model: {why} and [llm] base_url is not set"))


def _rerank_error(info: RerankInfo | None) -> str | None:
    """A failed model call while reranking, for the audit log (`<provider>: …`)."""
    if info is None or info.used or info.by is None or not info.reason:
        return None
    return f"{info.by}: rerank: {info.reason.removeprefix(info.by + ': ')}"


RerankArg = Annotated[bool | None, Field(description="Reorder the best hits with an LLM.")]


# -- search ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Searched:
    """What the search resolver found, or the exception it met (raised again inside
    `serve`, which shapes it), and whether reranking was asked for."""

    result: SearchResult | None = None
    error: Exception | None = None
    rerank: bool = False


async def run_search(
    query: str,
    filters: SearchFilters | None,
    top_k: int,
    detail: str | None,
    view: str | None,
    rerank: bool | None,
    ctx: Context[ServerState, Any],
) -> _Searched:
    state = _state(ctx)
    want = state.settings.llm.rerank if rerank is None else rerank
    where = (filters or SearchFilters()).where()

    def work(engine: Engine) -> SearchResult:
        k = engine.rerank_pool(top_k) if want else top_k
        options = engine.search_options(k=k, where=where, detail=detail, view=view)
        return engine.retrieve(query, options)

    try:
        return _Searched(result=await state.run(work), rerank=want)
    except Exception as exc:
        return _Searched(error=exc, rerank=want)


async def search_rerank(
    query: str, searched: Annotated[_Searched, Resolve(run_search)], ctx: Context[ServerState, Any]
) -> Sample | _Sampled | None:
    if not searched.rerank or searched.result is None:
        return None
    return await sample_rerank(ctx, query, searched.result.hits)


async def search_code(
    query: Annotated[str, Field(description="Words, identifiers, a path or an error.")],
    searched: Annotated[_Searched, Resolve(run_search)],
    sampled: Annotated[CreateMessageResult | _Sampled | None, Resolve(search_rerank)],
    ctx: Context[ServerState, Any],
    filters: Annotated[
        SearchFilters | None, Field(description="Narrow to a repo, path, language or kind.")
    ] = None,
    top_k: Annotated[
        int, Field(strict=True, ge=1, le=MAX_TOP_K, description="Hits to return.")
    ] = 10,
    detail: Annotated[
        Literal["compact", "preview", "full"] | None,
        Field(description="Snippet and why size (default preview)."),
    ] = None,
    view: Annotated[
        Literal["hits", "symbols", "files"] | None,
        Field(description="symbols/files: one hit per function/file."),
    ] = None,
    rerank: RerankArg = None,
) -> Annotated[CallToolResult, SearchCodeResult]:
    """Hybrid (semantic + keyword) code search. Returns evidence with why each matched."""
    rec = _current_call("search_code")
    f = filters or SearchFilters()
    rec.query = query
    rec.filters = {
        **f.model_dump(exclude_none=True),
        "top_k": top_k,
        "detail": detail,
        "view": view,
        "rerank": rerank,
    }
    reranked = None
    if searched.result is not None and searched.rerank:
        reranked = await rerank_hits(ctx, query, searched.result.hits, sampled)
        rec.provider_error = _rerank_error(reranked.info)

    def work(engine: Engine) -> SearchCodeResult:
        if searched.error is not None:
            raise searched.error
        assert searched.result is not None
        out = searched.result.code_result(rec.query_id)
        if reranked is not None:
            out = out.model_copy(update={"results": reranked.hits[:top_k], "rerank": reranked.info})
        if detail == "compact":  # `why` had been 63% of a compact result
            briefed = [hit.model_copy(update={"why": brief_why(hit.why)}) for hit in out.results]
            out = out.model_copy(update={"results": briefed})
        return out

    return await _state(ctx).serve("search_code", work, lambda r: (len(r.results), len(r.results)))


async def open_file(
    path: Annotated[
        str, Field(description="Path as search returns it, `path:40-60`, or a node id.")
    ],
    ctx: Context[ServerState, Any],
    start_line: Annotated[int | None, Field(strict=True, ge=1, description="1-based.")] = None,
    end_line: Annotated[int | None, Field(strict=True, ge=1, description="Inclusive.")] = None,
    repo: Repo = None,
) -> Annotated[CallToolResult, FileContent]:
    """Read a file or line range from disk (the source of truth). Size-capped."""
    rec = _current_call("open_file")
    rec.filters = {"path": path, "start": start_line, "end": end_line, "repo": repo}
    state = _state(ctx)
    cap = state.settings.server

    def work(engine: Engine) -> FileContent:
        where, start, asked = path, start_line, end_line
        if start is None and asked is None:  # `app.py:40-60`, as search and ask print it
            where, start, asked = parse_location(path)
        if start is not None and asked is not None and asked < start:
            raise OutOfRangeError(f"end_line {asked} is before start_line {start}; swap them.")
        # no end: a page from the start, or a node id's symbol (`api/app.py#App.run`)
        view = engine.open_file(where, start, asked, repo=repo)
        lines = view.text.split("\n")
        keep = lines[: cap.open_max_lines]
        text = "\n".join(keep)
        if len(text) > cap.open_max_chars:
            text = text[: cap.open_max_chars].rsplit("\n", 1)[0]
            keep = text.split("\n")
        end = view.start_line + len(keep) - 1
        symbol = start is None and "#" in where  # shown whole, however long the file
        more = asked is None and not symbol and view.end_line < view.total_lines
        # A line longer than the cap is cut too (a minified file's): say so.
        line_cut = bool(keep) and keep[-1] != lines[len(keep) - 1]
        truncated = end < view.end_line or more or line_cut
        return FileContent(
            repo=view.repo,
            path=view.path,
            start_line=view.start_line,
            end_line=end,
            total_lines=view.total_lines,
            content=text,
            truncated=truncated,
            next_start_line=end + 1 if truncated and end < view.total_lines else None,
            stale=engine.changed_on_disk(view.repo, view.path),
        )

    return await state.serve("open_file", work, lambda r: (r.end_line - r.start_line + 1, None))


async def find_symbol(
    name: Annotated[str, Field(description="Name or qualified name, e.g. Table.add_row.")],
    ctx: Context[ServerState, Any],
    kind: Annotated[str | None, Field(description="e.g. class, function, method.")] = None,
    repo: Repo = None,
    limit: Limit = 20,
) -> Annotated[CallToolResult, SymbolMatches]:
    """Find definitions by name: exact matches first, then close ones."""
    rec = _current_call("find_symbol")
    rec.query = name
    rec.filters = {"kind": kind, "repo": repo, "limit": limit}

    def work(engine: Engine) -> SymbolMatches:
        matches = engine.find_symbol(name, kind=kind, repo=repo, limit=limit)
        if matches:
            return SymbolMatches(matches=matches)
        narrowed = " (or drop the kind or repo filter)" if kind or repo else ""
        hint = (
            f"No definition is named like {name!r}{narrowed}. search_code finds code by "
            "what it does; part of the name (one word of it) may match."
        )
        return SymbolMatches(matches=[], hint=hint)

    return await _state(ctx).serve("find_symbol", work, lambda r: (len(r.matches), None))


async def get_dependencies(
    symbol: SymbolArg,
    ctx: Context[ServerState, Any],
    types: EdgeTypes = None,
    depth: Depth = 1,
    min_confidence: MinConfidence = 0.0,
    repo: Repo = None,
) -> Annotated[CallToolResult, GraphResult]:
    """What a symbol uses (calls, imports, HTTP routes, rpcs, events…), with confidences."""
    rec = _current_call("get_dependencies")
    rec.query = symbol
    rec.filters = {"types": types, "depth": depth, "min_confidence": min_confidence}

    def work(engine: Engine) -> GraphResult:
        return engine.dependencies(
            symbol, types=types, depth=depth, min_confidence=min_confidence, repo=repo
        )

    return await _state(ctx).serve("get_dependencies", work, lambda r: (len(r.nodes), None))


async def get_callers(
    symbol: SymbolArg,
    ctx: Context[ServerState, Any],
    depth: Depth = 1,
    min_confidence: MinConfidence = 0.0,
    repo: Repo = None,
) -> Annotated[CallToolResult, GraphResult]:
    """Who calls or uses a symbol (clients, producers, importers, a type's users), with sites."""
    rec = _current_call("get_callers")
    rec.query = symbol
    rec.filters = {"depth": depth, "min_confidence": min_confidence, "repo": repo}

    def work(engine: Engine) -> GraphResult:
        return engine.callers(symbol, depth=depth, min_confidence=min_confidence, repo=repo)

    return await _state(ctx).serve("get_callers", work, lambda r: (len(r.nodes), None))


async def traverse_graph(
    start: SymbolArg,
    ctx: Context[ServerState, Any],
    depth: Depth = 2,
    types: EdgeTypes = None,
    direction: Annotated[
        Literal["out", "in", "both"], Field(description="out: what it uses; in: its users.")
    ] = "out",
    repo: Repo = None,
    limit: Annotated[
        int, Field(strict=True, ge=1, le=MAX_GRAPH_NODES, description="Most nodes to return.")
    ] = DEFAULT_GRAPH_NODES,
) -> Annotated[CallToolResult, GraphResult]:
    """Walk the code graph from a node (breadth-first), returning nodes, edges, paths."""
    rec = _current_call("traverse_graph")
    rec.query = start
    rec.filters = {"depth": depth, "types": types, "direction": direction, "limit": limit}

    def work(engine: Engine) -> GraphResult:
        return engine.traverse(
            start, depth=depth, types=types, direction=direction, repo=repo, limit=limit
        )

    return await _state(ctx).serve("traverse_graph", work, lambda r: (len(r.nodes), None))


async def repo_overview(
    ctx: Context[ServerState, Any],
    repo: Repo = None,
    budget_tokens: Annotated[
        int, Field(strict=True, ge=200, le=8000, description="Size of the map (characters / 4).")
    ] = 2000,
) -> Annotated[CallToolResult, Overview]:
    """A map of a repository: main modules and symbols, within a token budget."""
    rec = _current_call("repo_overview")
    rec.filters = {"repo": repo, "budget_tokens": budget_tokens}

    def work(engine: Engine) -> Overview:
        return engine.repo_overview(repo=repo, budget_tokens=budget_tokens)

    return await _state(ctx).serve("repo_overview", work, lambda r: (len(r.files), None))


@dataclass(frozen=True, slots=True)
class _Candidates:
    """The hits for a question (or the error met), and whether to rerank them."""

    found: Found | None = None
    error_code: str | None = None
    error: str | None = None
    rerank: bool = False


@dataclass(frozen=True, slots=True)
class _Gather:
    """What the evidence resolver found (or the error it met), for ask_code."""

    gathered: Gathered | None = None
    error_code: str | None = None
    error: str | None = None


async def find_candidates(
    query: str,
    scope: list[str] | None,
    top_k: int,
    path_prefix: str | None,
    language: str | None,
    min_score: float,
    rerank: bool | None,
    ctx: Context[ServerState, Any],
) -> _Candidates:
    want = _state(ctx).settings.llm.rerank if rerank is None else rerank

    def work(engine: Engine) -> Found:
        return engine.find_evidence(
            query,
            scope=scope,
            top_k=top_k,
            where=ChunkFilter(path_prefix=path_prefix, language=language),
            min_score=min_score,
            pool=engine.rerank_pool(top_k) if want else None,
        )

    try:
        return _Candidates(found=await _state(ctx).run(work), rerank=want)
    except CodeCompassError as exc:
        return _Candidates(error_code=error_code(exc), error=exc.for_mcp())


async def ask_rerank(
    query: str,
    candidates: Annotated[_Candidates, Resolve(find_candidates)],
    ctx: Context[ServerState, Any],
) -> Sample | _Sampled | None:
    if not candidates.rerank or candidates.found is None:
        return None
    return await sample_rerank(ctx, query, candidates.found.hits)


async def gather_evidence(
    query: str,
    candidates: Annotated[_Candidates, Resolve(find_candidates)],
    reordered: Annotated[CreateMessageResult | _Sampled | None, Resolve(ask_rerank)],
    top_k: int,
    ctx: Context[ServerState, Any],
) -> _Gather:
    found = candidates.found
    if found is None:
        return _Gather(error_code=candidates.error_code, error=candidates.error)
    info = None
    if candidates.rerank:
        reranked = await rerank_hits(ctx, query, found.hits, reordered)
        found, info = replace(found, hits=reranked.hits), reranked.info

    def work(engine: Engine) -> Gathered:
        return engine.pack_evidence(query, found, top_k=top_k, rerank=info)

    try:
        return _Gather(gathered=await _state(ctx).run(work))
    except CodeCompassError as exc:
        return _Gather(error_code=error_code(exc), error=exc.for_mcp())


async def sample_answer(
    found: Annotated[_Gather, Resolve(gather_evidence)], ctx: Context[ServerState, Any]
) -> Sample | _Sampled | None:
    """Ask the client's own model, when it offers sampling and there is evidence."""
    g = found.gathered
    if not (g and g.evidences):
        return None
    system, user = build_prompt(g)
    return await sample(ctx, system, user)


async def ask_code(
    query: Annotated[str, Field(description="The question, in plain words.")],
    found: Annotated[_Gather, Resolve(gather_evidence)],
    sampled: Annotated[CreateMessageResult | _Sampled | None, Resolve(sample_answer)],
    ctx: Context[ServerState, Any],
    scope: Annotated[
        list[str] | None,
        Field(max_length=50, description="Repositories to search (default all)."),
    ] = None,
    top_k: Annotated[
        int, Field(strict=True, ge=1, le=20, description="Evidences to consider.")
    ] = 8,
    path_prefix: Annotated[str | None, Field(description="Only paths starting with this.")] = None,
    language: Annotated[str | None, Field(description="e.g. python, typescript.")] = None,
    min_score: Annotated[float, Field(ge=0.0, description="Drop evidence scored lower.")] = 0.0,
    rerank: RerankArg = None,
) -> Annotated[CallToolResult, AskResult]:
    """Answer a question about the code; every claim cites an evidence [n]."""
    rec = _current_call("ask_code")
    rec.query = query
    rec.filters = {
        "scope": scope,
        "top_k": top_k,
        "path_prefix": path_prefix,
        "language": language,
        "min_score": min_score,
        "rerank": rerank,
    }
    if found.gathered is None:
        code, message = found.error_code or "error", found.error or "search failed"
        rec.fail(code, message)
        if code == "provider_error":
            rec.provider_error = f"embedder: {message}"
        return error_result("ask_code", code, message)
    g = found.gathered
    result = sampled.result if isinstance(sampled, _Sampled) else sampled
    sampling_error = sampled.error if isinstance(sampled, _Sampled) else None
    if result is not None and isinstance(result.content, TextContent):
        answer = finish(g, result.content.text, "sampling", result.model)
    else:
        llm = _state(ctx).settings.llm
        answer = await anyio.to_thread.run_sync(lambda: _answer_locally(g, llm))
        if sampling_error and answer.provider_error is None:
            answer = finish(g, answer.answer, answer.mode, answer.model, sampling_error)
    rec.result_count = answer.total_matches
    rec.evidence_count = len(answer.evidences)
    rec.provider_error = answer.provider_error or _rerank_error(answer.rerank)
    out = AskResult(
        answer=answer.answer,
        evidences=answer.evidences,
        meta=AskMeta(
            scope=scope or ["all"],
            top_k=top_k,
            min_score=min_score,
            llm_model=answer.model,
            answer_mode=answer.mode,
            total_matches=answer.total_matches,
            contexts_used=len(answer.evidences),
            cited=answer.cited,
            elapsed_ms=round(rec.elapsed_ms(), 1),
            query_id=rec.query_id,
            generation=answer.generation,
            stale=answer.stale,
            coverage=answer.coverage,
            rerank=answer.rerank,
        ),
    )
    return ok_result(out)


async def git_log(
    path: Annotated[str, Field(description="File or folder; '.' for the whole repo.")],
    ctx: Context[ServerState, Any],
    range: Annotated[
        str | None, Field(description="Revision range, e.g. HEAD~20..HEAD or v1.0..main.")
    ] = None,
    limit: Limit = 20,
    repo: Repo = None,
) -> Annotated[CallToolResult, GitLogResult]:
    """Commits that touched a path, newest first (read-only git log)."""
    rec = _current_call("git_log")
    rec.filters = {"path": path, "range": range, "limit": limit, "repo": repo}

    def work(engine: Engine) -> GitLogResult:
        commits = engine.git_log(path, repo=repo, rev_range=range, limit=limit)
        confined = engine.confine(path, repo=repo, allow_dir=True)
        return GitLogResult(repo=confined.repo, path=confined.rel or ".", commits=commits)

    return await _state(ctx).serve("git_log", work, lambda r: (len(r.commits), None))


async def git_blame(
    path: Annotated[str, Field(description="Repository-relative file path.")],
    start_line: Annotated[int, Field(strict=True, ge=1, description="1-based.")],
    end_line: Annotated[int, Field(strict=True, ge=1, description="Inclusive.")],
    ctx: Context[ServerState, Any],
    repo: Repo = None,
) -> Annotated[CallToolResult, GitBlameResult]:
    """Who last changed lines start_line..end_line of a file, grouped by commit."""
    rec = _current_call("git_blame")
    rec.filters = {"path": path, "start": start_line, "end": end_line, "repo": repo}

    def work(engine: Engine) -> GitBlameResult:
        hunks = engine.git_blame(path, start_line, end_line, repo=repo)
        confined = engine.confine(path, repo=repo)
        return GitBlameResult(repo=confined.repo, path=confined.rel, hunks=hunks)

    return await _state(ctx).serve("git_blame", work, lambda r: (len(r.hunks), None))


async def index_status(ctx: Context[ServerState, Any]) -> Annotated[CallToolResult, IndexStatus]:
    """Indexed repositories: counts, last run, files changed on disk since (stale)."""

    def work(engine: Engine) -> IndexStatus:
        info = engine.status()
        return IndexStatus(
            data_dir=info["data_dir"],
            model=info["model"],
            generation=info["generation"],
            vectors=info["vectors"],
            indexing_now=info["indexing_now"],
            repos=[
                RepoStatus(
                    id=r["id"],
                    root=r["root"],
                    files=r["files"],
                    symbols=r["symbols"],
                    chunks=r["chunks"],
                    last_commit=r["last_commit"],
                    last_indexed_at=r["last_indexed_at"],
                    last_run_status=(r["last_run"] or {}).get("status"),
                    stale=r["changed_on_disk"],
                    files_to_read_again=r["files_to_read_again"],
                )
                for r in info["repos"]
            ],
        )

    return await _state(ctx).serve("index_status", work, lambda r: (len(r.repos), None))


def _tools() -> list[Tool]:
    return [Tool.from_function(fn, annotations=READ_ONLY) for fn in TOOLS] + memory_tools()


# -- project memory (docs/memory.md) ---------------------------------------------------
CONTEXT_URI = "codecompass://memory/context"
MemoryTypeArg = Literal["decision", "pattern", "error", "spec", "context"]
Labels = Annotated[list[str] | None, Field(max_length=50, description="Short labels, e.g. db.")]
HasTags = Annotated[
    list[str] | None, Field(max_length=50, description="Only memories with all these tags.")
]
About = Annotated[
    list[str] | None,
    Field(max_length=50, description="Only memories about these symbols or files."),
]


class MemoryList(BaseModel):
    memories: list[MemoryItem]


class Forgotten(BaseModel):
    forgotten: list[str]


async def memory_remember(
    content: Annotated[str, Field(description="One durable fact, in a sentence or two.")],
    ctx: Context[ServerState, Any],
    type: Annotated[MemoryTypeArg, Field(description="What kind of fact it is.")] = "context",
    tags: Labels = None,
    symbols: Annotated[
        list[str] | None,
        Field(
            description="Symbols or files it is about (names, node ids or paths).", max_length=50
        ),
    ] = None,
) -> Annotated[CallToolResult, RememberResult]:
    """Remember a decision, pattern, fix, spec or context for later sessions (no secrets)."""
    rec = _current_call("memory_remember")
    rec.filters = {"type": type, "tags": tags, "symbols": symbols}

    def work(engine: Engine) -> RememberResult:
        return engine.memory.remember(
            content, type=type, tags=tags or (), symbols=symbols or (), source="mcp"
        )

    return await _state(ctx).serve("memory_remember", work, lambda r: (1, None))


async def memory_recall(
    query: Annotated[str, Field(description="What you want to know; empty for the most salient.")],
    ctx: Context[ServerState, Any],
    types: Annotated[list[MemoryTypeArg] | None, Field(description="Only these types.")] = None,
    tags: HasTags = None,
    symbols: About = None,
    since: Annotated[str | None, Field(description="ISO date: written or used since.")] = None,
    limit: Limit = 20,
    budget_tokens: Annotated[
        int | None,
        Field(strict=True, ge=50, le=16000, description="Fit results in this (characters / 4)."),
    ] = None,
    detail: Annotated[
        Literal["compact", "full", "context"],
        Field(description="compact: a line each; full: all fields; context: Markdown."),
    ] = "compact",
) -> Annotated[CallToolResult, RecallResult]:
    """Project memories about a question, best first, within a token budget."""
    rec = _current_call("memory_recall")
    rec.query = query
    rec.filters = {"types": types, "tags": tags, "symbols": symbols, "limit": limit}

    def work(engine: Engine) -> RecallResult:
        return engine.memory.recall(
            query,
            types=types or (),
            tags=tags or (),
            symbols=symbols or (),
            since=since,
            limit=limit,
            budget_tokens=budget_tokens,
            detail=detail,
        )

    return await _state(ctx).serve("memory_recall", work, lambda r: (r.matched, len(r.hits)))


async def memory_list(
    ctx: Context[ServerState, Any],
    types: Annotated[list[MemoryTypeArg] | None, Field(description="Only these types.")] = None,
    tags: HasTags = None,
    symbols: About = None,
    limit: Annotated[
        int, Field(strict=True, ge=1, le=500, description="Most memories to return.")
    ] = 50,
) -> Annotated[CallToolResult, MemoryList]:
    """Memories newest first, with ids and the code they are about (dangling: gone)."""
    rec = _current_call("memory_list")
    rec.filters = {"types": types, "tags": tags, "symbols": symbols, "limit": limit}

    def work(engine: Engine) -> MemoryList:
        items = engine.memory.entries(
            types=types or (), tags=tags or (), symbols=symbols or (), limit=limit
        )
        return MemoryList(memories=items)

    return await _state(ctx).serve("memory_list", work, lambda r: (len(r.memories), None))


async def memory_forget(
    ids: Annotated[list[str], Field(min_length=1, max_length=100, description="Memory ids.")],
    ctx: Context[ServerState, Any],
) -> Annotated[CallToolResult, Forgotten]:
    """Delete memories that are wrong or obsolete (every id must exist)."""
    rec = _current_call("memory_forget")
    rec.filters = {"ids": ids}

    def work(engine: Engine) -> Forgotten:
        return Forgotten(forgotten=engine.memory.forget(ids))

    return await _state(ctx).serve("memory_forget", work, lambda r: (len(r.forgotten), None))


async def capture_sample(
    transcript: str, ctx: Context[ServerState, Any]
) -> Sample | _Sampled | None:
    try:
        turns = read_transcript(transcript.splitlines())
    except ValueError:
        return None  # the tool reports the bad line
    if not turns:
        return None
    system, user = capture_prompt(turns, max_chars=_state(ctx).settings.llm.context_tokens * 4)
    return await sample(ctx, system, user)


async def memory_capture(
    transcript: Annotated[
        str, Field(description="The session as JSON Lines (Claude Code, OpenCode or chat).")
    ],
    sampled: Annotated[CreateMessageResult | _Sampled | None, Resolve(capture_sample)],
    ctx: Context[ServerState, Any],
    dry_run: Annotated[bool, Field(description="Show what would be kept; write nothing.")] = False,
) -> Annotated[CallToolResult, CaptureResult]:
    """Keep the durable facts of a finished session's transcript as memories."""
    rec = _current_call("memory_capture")
    rec.filters = {"dry_run": dry_run}
    result = sampled.result if isinstance(sampled, _Sampled) else sampled
    reply = (
        (result.content.text, result.model)
        if result is not None and isinstance(result.content, TextContent)
        else None
    )

    def work(engine: Engine) -> CaptureResult:
        if reply is None:  # no sampling: the server's [llm] model, or its rules
            return engine.capture_memories(transcript.splitlines(), dry_run=dry_run)
        return engine.capture_memories(
            transcript.splitlines(),
            dry_run=dry_run,
            complete=lambda system, user: reply,
            extractor="sampling",
        )

    return await _state(ctx).serve("memory_capture", work, lambda r: (len(r.items), None))


WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)
DELETES = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True)
# Recall notes a use of each memory it returns; nothing an agent would call a write.
READS = ToolAnnotations(read_only_hint=True)


def memory_tools() -> list[Tool]:
    return [
        Tool.from_function(memory_remember, annotations=WRITES),
        Tool.from_function(memory_recall, annotations=READS),
        Tool.from_function(memory_list, annotations=READS),
        Tool.from_function(memory_forget, annotations=DELETES),
        Tool.from_function(memory_capture, annotations=WRITES),
    ]


def add_memory_context(server: MCPServer[ServerState], state: ServerState) -> None:
    """The session-start context as a resource and as a prompt."""

    async def context_text() -> tuple[str, str | None]:
        """The context, redacted as every tool result is, or why there is none (no index
        yet: the error's message, not the SDK's bare "Error reading resource")."""
        try:
            text = await state.run(lambda engine: engine.memory.context().text)
        except CodeCompassError as exc:
            return "", exc.for_mcp()
        return str(redact_all(text)), None

    @server.resource(
        CONTEXT_URI,
        name="project_memory",
        description="What earlier sessions recorded about this project (Markdown).",
        mime_type="text/markdown",
    )
    async def memory_resource() -> str:
        text, error = await context_text()
        if error is not None:
            return f"## Project Memory\n(unavailable: {error})\n"
        return text or "## Project Memory\n(nothing remembered yet)\n"

    @server.prompt(
        name="project_memory",
        description="Load what earlier sessions recorded about this project.",
    )
    async def memory_prompt() -> str:
        text, error = await context_text()
        if error is not None:
            return f"Code Compass cannot read its project memory: {error}"
        if not text:
            return "Code Compass has no project memory yet; use memory_remember to add some."
        return text + "\nKeep these in mind; check them with memory_recall when relevant."

    del memory_resource, memory_prompt  # registered by the decorators


TOOLS: tuple[Callable[..., Any], ...] = (
    search_code,
    ask_code,
    open_file,
    find_symbol,
    get_dependencies,
    get_callers,
    traverse_graph,
    repo_overview,
    git_log,
    git_blame,
    index_status,
)


def build_server(state: ServerState) -> MCPServer[ServerState]:
    """The MCP server over `state` (opened in its lifespan, closed when it ends)."""

    @asynccontextmanager
    async def lifespan(_: MCPServer[ServerState]) -> AsyncIterator[ServerState]:
        await anyio.to_thread.run_sync(state.open)
        try:
            yield state
        finally:
            await anyio.to_thread.run_sync(state.close)

    tools = _tools()
    for tool in tools:
        tool.parameters = compact_schema(tool.parameters)
        if tool.fn_metadata.output_schema is not None:
            tool.fn_metadata.output_schema = compact_schema(
                tool.fn_metadata.output_schema, output=True
            )
    server: MCPServer[ServerState] = MCPServer(
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        version=_package_version(),
        tools=tools,
        lifespan=lifespan,
        log_level="WARNING",
    )
    server.middleware.append(audit_middleware(state, {t.name: t.parameters for t in tools}))

    async def metrics(_: Request) -> Response:
        text = await anyio.to_thread.run_sync(state.metrics_text, limiter=state.limiter)
        return PlainTextResponse(text, media_type="text/plain; version=0.0.4")

    async def healthz(_: Request) -> Response:
        return JSONResponse({"status": "ok"})

    add_memory_context(server, state)
    server.custom_route("/metrics", methods=["GET"])(metrics)
    server.custom_route("/healthz", methods=["GET"])(healthz)

    return server


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("codecompass")
    except PackageNotFoundError:
        return "0"


# -- transports ---------------------------------------------------------------------
def http_app(
    server: MCPServer[ServerState], state: ServerState, *, host: str, token: str
) -> ASGIApp:
    """The streamable HTTP app; behind a bearer token check when the server has a token
    or principals."""
    app: ASGIApp = server.streamable_http_app(
        host=host, stateless_http=state.settings.server.stateless
    )
    if token or state.principals.principals():
        return BearerTokenAuth(app, token, state.principals)
    return app


def serve(
    settings: Settings,
    *,
    http: bool = False,
    host: str | None = None,
    port: int | None = None,
    embedder: Embedder | None = None,
    watch: bool = False,
) -> None:
    """Run the server until stdin closes (stdio) or the process is stopped (HTTP); with
    `watch`, a watcher keeps the index current meanwhile (`watching`)."""
    if not watch:
        _serve(settings, http=http, host=host, port=port, embedder=embedder)
        return
    with watching(settings, embedder) as shared:
        _serve(settings, http=http, host=host, port=port, embedder=shared)


@contextmanager
def watching(settings: Settings, embedder: Embedder | None = None) -> Iterator[Embedder]:
    """`serve --watch`: a watcher over the index's work trees in a background thread, on
    an engine of its own (its own connections: a run never waits for a query, nor a query
    for a run; a query sees each file's new state once its transaction commits, and the
    vector store is re-read when its table changes). The embedding model is shared and
    yielded. Batches are logged on stderr; Ctrl-C and SIGTERM stop the server and the
    watcher, letting a run under way finish (up to 30 s)."""
    from codecompass.lifecycle.watch import (
        BatchReport,
        Watcher,
        WatchThread,
        check_watchable,
        watch_targets,
    )

    check_watchable(settings)
    if not index_exists(settings):
        raise NotIndexedError(
            f"serve --watch keeps the repositories of an index current, but there is no "
            f"index in {settings.data_dir} yet; run `codecompass index PATH --data-dir "
            f"{settings.data_dir}` first."
        )
    engine = Engine(settings, embedder=embedder)
    stopped = True
    try:
        targets, notes = watch_targets(engine)
        for note in notes:
            print(f"codecompass watch: {note}", file=sys.stderr, flush=True)

        def on_batch(report: BatchReport) -> None:
            print(f"codecompass watch: {report.line()}", file=sys.stderr, flush=True)

        thread = WatchThread(Watcher(engine, targets, on_batch=on_batch))
        thread.start()
        stopped = False
        roots = ", ".join(str(t.root) for t in targets)
        print(f"codecompass watch: watching {roots}", file=sys.stderr, flush=True)
        main = threading.current_thread() is threading.main_thread()

        def on_sigterm(*_: object) -> None:
            raise KeyboardInterrupt

        previous = signal.signal(signal.SIGTERM, on_sigterm) if main else None
        try:
            yield engine.embedder
        except KeyboardInterrupt:
            pass
        finally:
            if main:
                signal.signal(signal.SIGTERM, previous)
            stopped = thread.stop(timeout=30)
    finally:
        if stopped:
            engine.close()


async def _run_stdio(server: MCPServer[ServerState]) -> None:
    """`MCPServer.run_stdio_async`, but a line that is no JSON-RPC message gets an error
    reply: the SDK's stdio reader drops it, and a client waiting on that id hangs."""
    lowlevel = server._lowlevel_server  # the SDK has no public hook for the streams
    async with stdio_server() as (received, write_stream):
        checked_writer, checked = anyio.create_memory_object_stream[SessionMessage | Exception](0)

        async def answer_invalid() -> None:
            async with checked_writer:
                async for item in received:
                    if not isinstance(item, Exception):
                        await checked_writer.send(item)
                    elif (reply := invalid_message_reply(item)) is not None:
                        await write_stream.send(SessionMessage(reply))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(answer_invalid)
            await lowlevel.run(checked, write_stream, lowlevel.create_initialization_options())
            tasks.cancel_scope.cancel()


def invalid_message_reply(error: Exception) -> JSONRPCError | None:
    """The JSON-RPC 2.0 answer to a line the SDK could not read: a parse error (-32700)
    for text that is no JSON, else an invalid request (-32600) under the message's own
    `id` when it has a usable one (null otherwise, as the spec says). A response from
    the client (`result` or `error`, no `method`) is not answered."""
    if not isinstance(error, ValidationError):
        return None
    problems = error.errors()
    if any(p["type"] == "json_invalid" for p in problems):
        return JSONRPCError(
            jsonrpc="2.0",
            id=None,
            error=ErrorData(code=PARSE_ERROR, message="Parse error: the line is not JSON"),
        )
    message: dict[str, Any] = next(
        (p["input"] for p in problems if isinstance(p.get("input"), dict)), {}
    )
    if "method" not in message and ("result" in message or "error" in message):
        return None  # a response: nothing to answer
    raw_id = message.get("id")
    usable = isinstance(raw_id, str) or (isinstance(raw_id, int) and not isinstance(raw_id, bool))
    where = "; ".join(  # a request's problems, not those of the response it is not
        dict.fromkeys(
            f"{'.'.join(str(x) for x in p['loc'][1:]) or 'message'}: {p['msg']}"
            for p in problems
            if p["loc"][1:2] not in (("result",), ("error",))
        )
    )
    return JSONRPCError(
        jsonrpc="2.0",
        id=raw_id if usable else None,
        error=ErrorData(
            code=INVALID_REQUEST,
            message="Invalid Request: not a JSON-RPC 2.0 message MCP knows "
            f"({where or 'no known shape'})",
        ),
    )


def _serve(
    settings: Settings,
    *,
    http: bool = False,
    host: str | None = None,
    port: int | None = None,
    embedder: Embedder | None = None,
) -> None:
    bind = host or settings.server.host
    token = settings.server.token
    state = ServerState(settings, embedder=embedder, transport="http" if http else "stdio")
    if http:
        check_http_binding(bind, token, bool(state.principals.principals()))
    server = build_server(state)
    if not http:
        anyio.run(_run_stdio, server)
        return
    auth = (
        "bearer token required"
        if token or state.principals.principals()
        else "no token (loopback only)"
    )

    def started(host: str, port: int) -> None:
        print(
            f"Code Compass MCP server on http://{host}:{port}/mcp ({auth}); "
            f"metrics at /metrics. Data: {settings.data_dir}",
            file=sys.stderr,
            flush=True,
        )

    app = http_app(server, state, host=bind, token=token)
    run_http(app, bind, settings.server.port if port is None else port, started)
