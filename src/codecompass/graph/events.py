"""Events between services: producers and consumers of a topic, linked through it.

Resolution hands every Python and JS call that keeps its arguments to `event_edges`
(a `CallEdges` hook of the resolver). From what the called chain evaluates to — an
object of a messaging library, `kafka.KafkaProducer.send`, `events.on` — it tells
whether the call publishes or subscribes (`APIS`), and reads the topic's name from the
arguments:

- ``emits``: the function making the call → the topic;
- ``listens``: the handler → the topic: the callback the call registers when it names a
  function of the workspace (`on_message_callback=`, `emitter.on('e', handler)`, the
  function `@receiver` decorates), else the function making the call.

A topic is a node of its own: ``event:<broker>/<name>``, e.g. ``event:kafka/orders``.
The broker is part of the id, so a Redis channel never meets a Kafka topic of the same
name. Topics of in-process emitters start with a repository, as they never leave their
process: ``event:emitter/<repo>/<event>`` for a Node ``EventEmitter``,
``event:django/<repo>/<path>#<signal>`` for a Django signal of the workspace (its
definition: the signal object is the channel) and ``event:django/<repo>/<dotted
name>`` for one from outside (``post_save``), in the repository using it.

Confidence says how the topic's name was read:

==========  ==========  ==============================================================
via         confidence  when
==========  ==========  ==============================================================
literal     0.9         a string literal at the call
constant    0.8         a name bound to a string: a module or class constant, imported
                        or not, an instance attribute, a local; a Django signal object
unknown     0.0         anything else (a parameter, the environment, an interpolation):
                        the edge is unresolved (``?event:kafka/topic``) and links nothing
==========  ==========  ==============================================================

After every link run `relink_events` joins the two sides: an ``event`` edge from each
producer to each consumer of a topic (`name` is the topic's id; confidence and `via`
are the weaker side's), with the emitting line as its evidence and the listening line
as the other side's. It is what callers, dependencies and search follow in one hop, as
they follow an HTTP call to its route.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from codecompass.graph.models import EDGE_WEIGHTS, TOPIC_PREFIX, joined_edge
from codecompass.graph.resolve import Ctx, Resolver, Value
from codecompass.indexing.facts import EVENT_CALLS, Ref
from codecompass.models import Edge, EdgeQuery, LinkUpdate, OwnedEdges
from codecompass.storage import Backend

LITERAL = ("literal", 0.9)
CONSTANT = ("constant", 0.8)
UNKNOWN = ("unknown", 0.0)
PREFIX = TOPIC_PREFIX
EVENT_TYPES = ("emits", "listens")
_PLAIN_CHAIN = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_CLASS_KINDS = frozenset({"class", "enum", "struct"})
_HANDLER_KINDS = frozenset({"function", "method"})


@dataclass(frozen=True, slots=True)
class Api:
    """One call of a messaging library. Slots name arguments: ``0`` the first positional
    one, ``topic`` a keyword, ``0[]`` the elements of a list at 0, ``0.topic`` a key of
    an object at 0, ``*`` every positional one; the first slot given wins."""

    broker: str
    role: str  # emits or listens
    topics: tuple[str, ...] = ()
    handler: tuple[str, ...] = ()  # where a callback may be; "@" the decorated definition
    exchange: tuple[str, ...] = ()  # AMQP: the exchange ("" or none: the key is a queue)
    signal: bool = False  # Django: the topic is the signal object


def _apis() -> dict[tuple[str, str], Api]:
    kafka_send = Api("kafka", "emits", ("0", "topic"))
    kafka_consumer = Api("kafka", "listens", ("*",))
    kafka_subscribe = Api("kafka", "listens", ("0[]", "topics[]", "0", "topics"))
    pika_publish = Api("amqp", "emits", ("routing_key", "1"), exchange=("exchange", "0"))
    amqp_consume = Api("amqp", "listens", ("queue", "0"), ("on_message_callback", "1"))
    nats_publish = Api("nats", "emits", ("0", "subject"))
    redis_publish = Api("redis", "emits", ("0", "channel"))
    redis_subscribe = Api("redis", "listens", ("*",), ("1",))
    sqs_send = Api("sqs", "emits", ("QueueUrl",))
    emit = Api("emitter", "emits", ("0",))
    listen = Api("emitter", "listens", ("0",), ("1",))
    table = {
        # kafka-python, aiokafka, confluent-kafka, kafkajs
        ("kafka", "send"): kafka_send,
        ("kafka", "KafkaConsumer"): kafka_consumer,
        ("kafka", "subscribe"): kafka_subscribe,
        ("aiokafka", "send"): kafka_send,
        ("aiokafka", "send_and_wait"): kafka_send,
        ("aiokafka", "AIOKafkaConsumer"): kafka_consumer,
        ("aiokafka", "subscribe"): kafka_subscribe,
        ("confluent_kafka", "produce"): kafka_send,
        ("confluent_kafka", "subscribe"): kafka_subscribe,
        ("kafkajs", "send"): Api("kafka", "emits", ("0.topic",)),
        ("kafkajs", "subscribe"): Api("kafka", "listens", ("0.topic", "0.topics[]")),
        # RabbitMQ: pika, amqplib
        ("pika", "basic_publish"): pika_publish,
        ("pika", "basic_consume"): amqp_consume,
        ("amqplib", "sendToQueue"): Api("amqp", "emits", ("0",)),
        ("amqplib", "publish"): Api("amqp", "emits", ("1",), exchange=("0",)),
        ("amqplib", "consume"): amqp_consume,
        # NATS (nats-py, nats.js)
        ("nats", "publish"): nats_publish,
        ("nats", "request"): nats_publish,
        ("nats", "subscribe"): Api("nats", "listens", ("0", "subject"), ("cb", "1.callback")),
        # Redis pub/sub: redis-py, node-redis, ioredis
        ("redis", "publish"): redis_publish,
        ("redis", "subscribe"): redis_subscribe,
        ("ioredis", "publish"): redis_publish,
        ("ioredis", "subscribe"): redis_subscribe,
        # Amazon SQS through boto3
        ("boto3", "send_message"): sqs_send,
        ("boto3", "send_message_batch"): sqs_send,
        ("boto3", "receive_message"): Api("sqs", "listens", ("QueueUrl",)),
        # Django signals
        ("django", "send"): Api("django", "emits", signal=True),
        ("django", "send_robust"): Api("django", "emits", signal=True),
        ("django", "connect"): Api("django", "listens", (), ("0", "receiver"), signal=True),
        ("django", "receiver"): Api(
            "django", "listens", ("0[]", "0", "signal"), ("@",), signal=True
        ),
    }
    for verb in ("on", "once", "addListener", "prependListener", "prependOnceListener"):
        table[("events", verb)] = table[("node:events", verb)] = listen
    table[("events", "emit")] = table[("node:events", "emit")] = emit
    return table


APIS = _apis()


def event_api(external: str) -> Api | None:
    """The messaging call an external dotted name is (`kafka.KafkaProducer.send`), if any."""
    parts = external.split(".")
    api = APIS.get((parts[0], parts[-1]))
    if api is None or (api.broker == "django" and not {"dispatch", "signals"} & set(parts)):
        return None  # Django: only signals send (an EmailMessage does too)
    return api


def event_edges(
    resolver: Resolver, ctx: Ctx, ref: Ref, value: Value, source: str, innermost: str
) -> list[Edge]:
    """The `emits` and `listens` edges of one call (see the module docstring)."""
    if ref.name.rpartition(".")[2] not in EVENT_CALLS:
        return []
    api = next(
        (
            found
            for alt in value.each
            if alt.kind == "ext" and (found := event_api(alt.name)) is not None
        ),
        None,
    )
    if api is None:
        return []
    reader = _Reader(resolver, ctx, ref)
    topics = reader.signals(api) if api.signal else reader.topics(api)
    node = reader.handler(api, source, innermost) if api.role == "listens" else source
    rows: list[Edge] = []
    for name, written, (via, confidence) in topics:
        if name is None:
            target, resolved = f"?{PREFIX}{api.broker}/{written}", False
        else:
            target, resolved = topic_id(api.broker, name), True
        rows.append(
            Edge(
                source=node,
                target=target,
                type=api.role,
                weight=EDGE_WEIGHTS[api.role],
                confidence=confidence,
                resolved=resolved,
                via=via,
                name=written,
                evidence_line=ref.line,
            )
        )
    return rows


def topic_id(broker: str, name: str) -> str:
    return f"{PREFIX}{broker}/{name}"


def split_topic(node: str) -> tuple[str, str] | None:
    """`event:kafka/orders` → ("kafka", "orders"); None for another node."""
    if not node.startswith(PREFIX) or "/" not in node:
        return None
    broker, _, name = node[len(PREFIX) :].partition("/")
    return broker, name


# A topic as read: its name (None when it could not be read), as written, how it was read.
_Topic = tuple[str | None, str, tuple[str, float]]


class _Reader:
    """Reads one call's arguments (`Ref.values`) with the resolver's help."""

    def __init__(self, resolver: Resolver, ctx: Ctx, ref: Ref) -> None:
        self.resolver, self.ctx, self.ref = resolver, ctx, ref
        self.slots: dict[str, list[str]] = {}
        position = 0
        for key, value in ref.values or ():
            if not key:
                key = str(position)
                position += 1
                self.slots.setdefault("*", []).append(value)
            self.slots.setdefault(key, []).append(value)

    def first(self, slots: Sequence[str]) -> list[str] | None:
        return next((self.slots[s] for s in slots if s in self.slots), None)

    def topics(self, api: Api) -> list[_Topic]:
        values = self.first(api.topics)
        if values is None:
            return []
        found = [self.name(v) for v in values]
        if "*" in api.topics:  # every positional argument: those that are no names go
            found = [t for t in found if t[0] is not None] or found[:1]
        exchange = self.exchange(api)
        out: list[_Topic] = []
        for name, written, how in found:
            if name is not None and api.broker == "sqs":
                name = name.rstrip("/").rpartition("/")[2] or None  # a queue URL's name
            elif name is not None and api.broker == "emitter":
                name = f"{self.ctx.repo}/{name}"
            if exchange is not None and exchange[0]:
                if name is None or exchange[0] == "?":
                    name, how = None, UNKNOWN
                else:
                    name, how = f"{exchange[0]}/{name}", min(how, exchange[1], key=_conf)
            out.append((name, written, how))
        return out

    def exchange(self, api: Api) -> tuple[str, tuple[str, float]] | None:
        """AMQP's exchange: "" for the default one (the routing key names a queue), "?"
        when it cannot be read; None when the call has none."""
        values = self.first(api.exchange) if api.exchange else None
        if not values:
            return None
        name, _, how = self.name(values[0], empty=True)
        return (name if name is not None else "?"), how

    def name(self, value: str, empty: bool = False) -> _Topic:
        """A topic's name from an argument: a literal, or a name bound to a string
        (never an empty one, unless `empty`: AMQP's default exchange)."""
        kind, _, rest = value.partition(":")
        if kind == "str":
            if "{}" in rest or not (rest or empty):
                return None, rest or "?", UNKNOWN
            return rest, rest, LITERAL
        if kind != "expr" or not _PLAIN_CHAIN.fullmatch(rest):
            return None, rest or "?", UNKNOWN
        text = self.resolver.string_value(self.ctx, value, self.ref.scope)
        if text is None:
            text = self.attribute(rest)
        if text is None or "{}" in text or not (text or empty):
            return None, rest, UNKNOWN
        return text, rest, CONSTANT

    def attribute(self, chain: str) -> str | None:
        """A string held by a class attribute or an instance one: `Topics.ORDERS`,
        `Topic.ORDERS.value` (an enum), `self.topic`."""
        owner, _, name = chain.rpartition(".")
        if name == "value" and "." in owner:
            owner, _, name = owner.rpartition(".")
        if not owner:
            return None
        found = self.resolver.eval_chain(self.ctx, owner, self.ref.scope, self.ref.line, 0)
        cls = found.sym if found.kind in ("sym", "inst") else None
        if cls is None or cls.kind not in _CLASS_KINDS:
            return None
        target = self.resolver.ctx(cls.repo, cls.path)
        facts = target.facts.classes.get(cls.qualified_name) if target is not None else None
        if target is None or facts is None:
            return None
        bound = target.facts.scopes[facts.scope].bindings.get(name, [])
        held = [(facts.scope, value) for _, value in bound[-1:]]
        for scope, value in [*held, *facts.attrs.get(name, [])]:
            text = self.resolver.string_value(target, value, scope)
            if text is not None:
                return text
        return None

    def signals(self, api: Api) -> list[_Topic]:
        """Django: the signal objects a call names (the receiver of `sig.send()`, the
        arguments of `@receiver(sig)`), each as its definition."""
        if api.topics:
            values = self.first(api.topics) or []
            chains = [v[5:] for v in values if v.startswith("expr:")]
        else:
            chains = [self.ref.name.rpartition(".")[0]]
        return [self.signal(chain) for chain in chains if chain]

    def signal(self, chain: str) -> _Topic:
        ref = self.ref
        if _PLAIN_CHAIN.fullmatch(chain) and self.at_module(chain.split(".")[0]):
            key = self.resolver.router_key(self.ctx, chain, ref.scope, ref.line)
            if key:
                return key, chain, CONSTANT
        found = self.resolver.eval_chain(self.ctx, chain, ref.scope, ref.line, 0)
        if found.kind == "ext" and found.name.rpartition(".")[2][:1].islower():
            return f"{self.ctx.repo}/{found.name}", chain, CONSTANT  # `post_save`
        return None, chain, UNKNOWN

    def at_module(self, name: str) -> bool:
        """Whether `name` seen from the call is a module-level name (not a parameter)."""
        scopes = self.ctx.facts.scopes
        index = self.ref.scope if 0 <= self.ref.scope < len(scopes) else 0
        while 0 <= index < len(scopes):
            if name in scopes[index].bindings:
                return scopes[index].kind == "module"
            index = scopes[index].parent
        return False

    def handler(self, api: Api, source: str, innermost: str) -> str:
        """The function a subscription calls: a callback of the workspace given to the
        call, the definition a decorator applies to, else the caller."""
        for slot in api.handler:
            if slot == "@":
                return innermost
            for value in self.slots.get(slot, []):
                kind, _, chain = value.partition(":")
                if kind != "expr" or not _PLAIN_CHAIN.fullmatch(chain):
                    continue
                found = self.resolver.eval_chain(self.ctx, chain, self.ref.scope, self.ref.line, 0)
                for alt in found.each:
                    if alt.kind == "sym" and alt.sym is not None and alt.sym.kind in _HANDLER_KINDS:
                        return alt.sym.id
        return source


def _conf(how: tuple[str, float]) -> float:
    return how[1]


# -- linking producers to consumers ---------------------------------------------------------
def link_events(owned: Iterable[tuple[str, Edge]]) -> dict[tuple[str, str], list[Edge]]:
    """`event` edges from each producer of a topic to each of its consumers, by the
    producer's file; `owned` are `emits` and `listens` edges with their owning repo."""
    sides: dict[str, tuple[list[tuple[str, Edge]], list[tuple[str, Edge]]]] = {}
    for repo, edge in owned:
        if edge.resolved and edge.type in EVENT_TYPES:
            producers, consumers = sides.setdefault(edge.target, ([], []))
            (producers if edge.type == "emits" else consumers).append((repo, edge))
    by_owner: dict[tuple[str, str], list[Edge]] = {}
    for topic in sorted(sides):
        producers, consumers = sides[topic]
        for repo, emit in producers:
            for their_repo, listen in consumers:
                if emit.source == listen.source:
                    continue
                by_owner.setdefault((repo, emit.evidence_path or ""), []).append(
                    joined_edge("event", topic, emit, listen, their_repo, listen.evidence_path)
                )
    return by_owner


def event_update(backend: Backend, forget_repo: str | None = None) -> LinkUpdate:
    """The update that replaces every `event` edge of the workspace (after forgetting
    `forget_repo`, whose side of the events goes with it)."""
    repos = [r.id for r in backend.repos.repos() if r.id != forget_repo]
    owned = [
        (repo, edge)
        for repo in repos
        for edge in backend.edges.edges(EdgeQuery(types=list(EVENT_TYPES), repo=repo))
    ]
    rows = [OwnedEdges(repo, path, (), edges) for (repo, path), edges in link_events(owned).items()]
    return LinkUpdate(
        forget_repos=[forget_repo] if forget_repo else [], drop_types=("event",), owned=rows
    )


def relink_events(backend: Backend) -> int:
    """Join every producer of the workspace to the consumers of its topics again."""
    update = event_update(backend)
    backend.edges.write_links(update)
    return sum(len(o.edges) for o in update.owned)
