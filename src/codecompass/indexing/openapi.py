"""The operations of an OpenAPI 3 or Swagger 2 document, read from its YAML or JSON tree.

A YAML or JSON file is such a document when its top-level mapping has an ``openapi``
or a ``swagger`` key, whatever the file's name. Each operation (a method under a path
of ``paths``) becomes:

- a symbol of the document (``operation_symbols``), kind ``section`` like the file's
  top-level keys, qualified by where it sits: ``paths./users/{id}.get``, named
  ``GET /users/{id}``, its signature the full template and the operationId, its doc
  the summary;
- an endpoint of the file's facts (``operation_endpoints``): ``GET /api/users/{id}``,
  the first server's path (OpenAPI 3 ``servers[0].url``) or the ``basePath``
  (Swagger 2) in front, with its operationId (``graph/openapi.py`` links it).

Operations under a path item that is a ``$ref`` are not read, nor more than
``MAX_PATHS`` paths.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from codecompass.indexing.facts import Endpoint
from codecompass.indexing.rules import end_row
from codecompass.indexing.treesitter import Node
from codecompass.models import Symbol

# Paths read per document: as many keys as a data file's mapping may have before it
# counts as data (`rules_more.MAX_DATA_KEYS`).
MAX_PATHS = 2000
# A document's top-level keys (openapi, info, servers, paths, components, … and `x-`
# extensions): a mapping with more is data, not worth reading its keys.
MAX_TOP_KEYS = 64
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_MAPPINGS = frozenset({"block_mapping", "flow_mapping", "object"})
_SEQUENCES = frozenset({"block_sequence", "flow_sequence", "array"})
_PAIRS = frozenset({"block_mapping_pair", "flow_pair", "pair"})
_SCALARS = frozenset(
    {"plain_scalar", "double_quote_scalar", "single_quote_scalar", "string", "number"}
)
_WRAPPERS = frozenset({"stream", "document", "block_node", "flow_node", "block_sequence_item"})
_SCHEME_AND_HOST = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://[^/]*")


@dataclass(frozen=True, slots=True)
class Operation:
    method: str  # GET
    path: str  # as written under `paths`: /users/{id}
    key: str  # the method as written (its key): get
    line: int  # of the method's key
    end_line: int
    operation_id: str
    summary: str


@dataclass(frozen=True, slots=True)
class Document:
    base: str  # the servers' (or basePath's) path: "/api", or ""
    operations: tuple[Operation, ...]


def read_document(data: bytes, root: Node | None) -> Document | None:
    """The operations of an OpenAPI or Swagger document; None for other data."""
    top = _mapping(data, root, limit=MAX_TOP_KEYS)
    if top is None:
        return None
    keys = {key: value for key, _, value in top}
    if "openapi" not in keys and "swagger" not in keys:
        return None
    if "swagger" in keys:
        base = _scalar(data, keys.get("basePath")) or ""
    else:
        servers = _sequence(keys.get("servers"))
        first = _mapping(data, servers[0]) if servers else None
        url = next((_scalar(data, v) for k, _, v in first or [] if k == "url"), None)
        base = _server_path(url or "")
    operations: list[Operation] = []
    for path, _, item in (_mapping(data, keys.get("paths")) or [])[:MAX_PATHS]:
        if not path.startswith("/"):
            continue
        for key, key_node, value in _mapping(data, item) or []:
            if key.lower() not in METHODS:
                continue
            fields = {k: v for k, _, v in _mapping(data, value) or []}
            end = end_row(value if value is not None else key_node) + 1
            operations.append(
                Operation(
                    method=key.upper(),
                    path=path,
                    key=key,
                    line=key_node.start_point.row + 1,
                    end_line=max(end, key_node.start_point.row + 1),
                    operation_id=_scalar(data, fields.get("operationId")) or "",
                    summary=_scalar(data, fields.get("summary")) or "",
                )
            )
    return Document(base, tuple(operations))


def operation_symbols(document: Document) -> list[Symbol]:
    """One symbol per operation, under the `paths` section."""
    out: list[Symbol] = []
    for op in document.operations:
        signature = f"{op.method} {_join(document.base, op.path)}"
        if op.operation_id:
            signature += f" operationId: {op.operation_id}"
        out.append(
            Symbol(
                name=f"{op.method} {op.path}",
                qualified_name=f"paths.{op.path}.{op.key}",
                kind="section",
                start_line=op.line,
                end_line=op.end_line,
                header_end_line=op.line,
                signature=signature,
                doc=op.summary,
                parent="paths",
            )
        )
    return out


def operation_endpoints(document: Document) -> list[Endpoint]:
    return [
        Endpoint(
            "openapi",
            f"{op.method} {_join(document.base, op.path)}",
            op.line,
            f"paths.{op.path}.{op.key}",
            op.operation_id,
        )
        for op in document.operations
    ]


def _join(base: str, path: str) -> str:
    return base.rstrip("/") + path if base else path


def _server_path(url: str) -> str:
    """The path of a server URL: `https://api.example.com/v1/` → `/v1`."""
    text = _SCHEME_AND_HOST.sub("", url.strip())
    if text and not text.startswith("/"):
        text = text.partition("/")[2]  # `{host}/v1`, `localhost:8080/v1`
        text = "/" + text if text else ""
    return text.split("?", 1)[0].rstrip("/")


# -- reading YAML and JSON trees -------------------------------------------------------------
def _unwrap(node: Node | None) -> Node | None:
    """The value a wrapper holds (a YAML document, block or flow node); anchors and tags
    are passed over."""
    while node is not None and node.type in _WRAPPERS:
        inner = [c for c in node.named_children if c.type not in ("anchor", "tag", "comment")]
        node = inner[0] if inner else None
    return node


def _mapping(
    data: bytes, node: Node | None, limit: int | None = None
) -> list[tuple[str, Node, Node | None]] | None:
    """(key, key node, value node) of a mapping, in order; None when it is no mapping
    (or has more than `limit` entries)."""
    node = _unwrap(node)
    if node is None or node.type not in _MAPPINGS:
        return None
    if limit is not None and node.named_child_count > limit:
        return None
    out: list[tuple[str, Node, Node | None]] = []
    for pair in node.named_children:
        if pair.type not in _PAIRS:
            continue
        key_node = pair.child_by_field_name("key")
        key = _scalar(data, key_node)
        if key_node is not None and key is not None:
            out.append((key, key_node, pair.child_by_field_name("value")))
    return out


def _sequence(node: Node | None) -> list[Node]:
    node = _unwrap(node)
    if node is None or node.type not in _SEQUENCES:
        return []
    return [c for c in node.named_children if c.type != "comment"]


def _scalar(data: bytes, node: Node | None) -> str | None:
    node = _unwrap(node)
    if node is None or node.type not in _SCALARS:
        return None
    text = data[node.start_byte : node.end_byte].decode("utf-8", "replace")
    if node.type == "string" or node.type == "double_quote_scalar":
        try:
            value = json.loads(text)
        except ValueError:
            return text.strip('"')
        return value if isinstance(value, str) else None
    if node.type == "single_quote_scalar":
        return text[1:-1].replace("''", "'")
    return text.strip()
