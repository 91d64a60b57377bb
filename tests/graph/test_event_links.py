"""Event links across a service estate: producers link to consumers through a topic node
(`emits` and `listens` edges, joined by an `event` edge), for Kafka, Redis pub/sub,
RabbitMQ, NATS, SQS, Node's EventEmitter and Django signals, with a confidence saying how
the topic's name was read.

Each estate (tests/fixtures/graph/services/<broker>/) is indexed as several
repositories; its decoys (a topic named in a comment or a docstring, a Redis channel
named like a Kafka topic, a topic read from a parameter, an in-process event of another
repository) must not link."""

from __future__ import annotations

from pathlib import Path

from codecompass.engine import Engine
from codecompass.graph.events import APIS, event_api, link_events, split_topic
from codecompass.indexing.facts import EVENT_CALLS
from codecompass.models import Edge, EdgeQuery
from tests.graph.helpers import add_fixture, recall, workspace, write

# producer, topic node, consumer, confidence, via, producer line, consumer file, its line
Link = tuple[str, str, str, float, str, int, str, int]
# type, function, topic node, confidence, via, line
Side = tuple[str, str, str, float, str, int]


def event_links(engine: Engine) -> set[Link]:
    rows = set()
    for e in engine.backend.edges.edges(EdgeQuery(types=["event"])):
        assert e.evidence_line is not None and e.target_line is not None and e.target_path
        rows.add((e.source, e.name, e.target, e.confidence, e.via, e.evidence_line,
                  e.target_path, e.target_line))  # fmt: skip
    return rows


def topic_sides(engine: Engine) -> set[Side]:
    found = engine.backend.edges.edges(EdgeQuery(types=["emits", "listens"]))
    return {(e.type, e.source, e.target, e.confidence, e.via, e.evidence_line or 0) for e in found}


E = "shop/shop/events.py"
J = "billing/src/consumer.js"
A = "billing/audit/worker.py"
KAFKA_LINKS = {
    # an imported module constant → a literal in kafkajs' subscribe({topic})
    (f"{E}#place_order", "event:kafka/orders", f"{J}#consumeOrders", 0.8, "constant", 16,
     "src/consumer.js", 9),
    # a class constant → an ES module constant in subscribe({topics: [PAYMENTS]})
    (f"{E}#record_payment", "event:kafka/payments", f"{J}#consumePayments", 0.8, "constant",
     20, "src/consumer.js", 15),
    # literals on both sides; confluent-kafka's subscribe([...]) in Python
    (f"{E}#ship", "event:kafka/shipments", f"{A}#audit_shipments", 0.9, "literal", 24,
     "audit/worker.py", 9),
    # an instance attribute (`self.topic = "audit"`) through `self.producer`
    (f"{E}#Outbox.flush", "event:kafka/audit", f"{A}#audit_shipments", 0.8, "constant", 47,
     "audit/worker.py", 9),
    # the Redis channel "orders" links to its Redis subscriber only, not to Kafka's
    (f"{E}#invalidate", "event:redis/orders", f"{A}#watch_cache", 0.9, "literal", 33,
     "audit/worker.py", 16),
}  # fmt: skip
KAFKA_SIDES = {
    ("emits", f"{E}#place_order", "event:kafka/orders", 0.8, "constant", 16),
    ("emits", f"{E}#record_payment", "event:kafka/payments", 0.8, "constant", 20),
    ("emits", f"{E}#ship", "event:kafka/shipments", 0.9, "literal", 24),
    ("emits", f"{E}#invalidate", "event:redis/orders", 0.9, "literal", 33),
    # a topic from a parameter: unresolved, links nothing
    ("emits", f"{E}#forward", "?event:kafka/topic", 0.0, "unknown", 37),
    ("emits", f"{E}#Outbox.flush", "event:kafka/audit", 0.8, "constant", 47),
    ("listens", f"{J}#consumeOrders", "event:kafka/orders", 0.9, "literal", 9),
    ("listens", f"{J}#consumePayments", "event:kafka/payments", 0.8, "constant", 15),
    # "refunds" is only named in a comment and a docstring of the producer
    ("listens", f"{J}#consumeRefunds", "event:kafka/refunds", 0.9, "literal", 21),
    ("listens", f"{A}#audit_shipments", "event:kafka/shipments", 0.9, "literal", 9),
    ("listens", f"{A}#audit_shipments", "event:kafka/audit", 0.9, "literal", 9),
    ("listens", f"{A}#watch_cache", "event:redis/orders", 0.9, "literal", 16),
}

N = "notify/notify/alerts.py"
M = "mailer/src"
REDIS_LINKS = {
    # `config.ALERTS_CHANNEL` (a module attribute) → node-redis subscribe('alerts', onAlert):
    # the callback is the consumer
    (f"{N}#raise_alert", "event:redis/alerts", f"{M}/subscriber.js#onAlert", 0.8, "constant",
     11, "src/subscriber.js", 9),
    # an EventEmitter shared through require: in-process, within the mailer only
    (f"{M}/subscriber.js#onAlert", "event:emitter/mailer/mail:sent", f"{M}/bus.js#logSent", 0.9,
     "literal", 14, "src/bus.js", 10),
}  # fmt: skip


def test_kafka_estate_links_exactly_the_expected_producers_and_consumers(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "services/kafka/shop", "shop")
        add_fixture(engine, tmp_path, "services/kafka/billing", "billing")
        found = event_links(engine)
        assert found == KAFKA_LINKS
        assert recall(found, KAFKA_LINKS) == 1.0
        assert topic_sides(engine) == KAFKA_SIDES
        decoys = {"refund", "forward", "consumeRefunds"}
        assert not {r for r in found if {r[0].rpartition("#")[2], r[2].rpartition("#")[2]} & decoys}


def test_redis_and_emitter_estate_links_exactly_the_expected_pairs(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "services/redis/notify", "notify")
        add_fixture(engine, tmp_path, "services/redis/mailer", "mailer")
        found = event_links(engine)
        assert found == REDIS_LINKS
        assert recall(found, REDIS_LINKS) == 1.0
        sides = topic_sides(engine)
        # the status page's 'mail:sent' is another process's event than the mailer's
        assert ("emits", "notify/web/status.js#markSent", "event:emitter/notify/mail:sent",
                0.9, "literal", 7) in sides  # fmt: skip
        # "digest" is published only in a comment: its subscriber stays alone
        assert {s[2] for s in sides if s[1].endswith("#digest")} == set()
        assert (f"{M}/subscriber.js#onDigest", "event:redis/digest") in {
            (s[1], s[2]) for s in sides if s[0] == "listens"
        }


def test_a_topic_is_a_node_of_the_graph(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "services/kafka/shop", "shop")
        add_fixture(engine, tmp_path, "services/kafka/billing", "billing")
        topic = "event:kafka/orders"
        node = engine.graph.nodes([topic])[topic]
        assert (node.kind, node.name, node.repo, node.path) == ("topic", "kafka/orders", None, None)
        walk = engine.traverse(topic, direction="in", depth=1)
        assert walk.root == topic
        assert {(e.type, e.source) for e in walk.edges} == {
            ("emits", f"{E}#place_order"),
            ("listens", f"{J}#consumeOrders"),
        }
        details = engine.node_details(topic)
        assert details.node.kind == "topic" and details.in_total == 2
        assert split_topic(topic) == ("kafka", "orders")
        assert split_topic("event:emitter/mailer/mail:sent") == ("emitter", "mailer/mail:sent")
        assert split_topic("shop/shop/events.py#ship") is None


def test_callers_and_dependencies_follow_http_and_event_links_across_repos(
    tmp_path: Path,
) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "services/kafka/shop", "shop")
        add_fixture(engine, tmp_path, "services/kafka/billing", "billing")
        add_fixture(engine, tmp_path, "services/fastapi/service", "service")
        add_fixture(engine, tmp_path, "services/fastapi/client", "client")
        # a handler's callers: the producers of the topic it listens to…
        callers = engine.callers("consumeOrders")
        assert [(e.source, e.type, e.evidence_path, e.evidence_line, e.target_path,
                 e.target_line) for e in callers.edges] == [
            (f"{E}#place_order", "event", "shop/events.py", 16, "src/consumer.js", 9)
        ]  # fmt: skip
        # …and the HTTP clients calling its route (without asking for `http`)
        routed = engine.callers("get_user")
        assert [(e.source, e.type, e.evidence_line, e.target_line) for e in routed.edges] == [
            ("client/client.py#fetch_user", "http", 11, 8)
        ]
        deps = engine.dependencies("place_order")
        assert {(e.type, e.target) for e in deps.edges} >= {
            ("emits", "event:kafka/orders"),
            ("event", f"{J}#consumeOrders"),
        }
        client_deps = engine.dependencies("client/client.py#fetch_user", types=["http"])
        assert [e.target for e in client_deps.edges] == ["service/app/routers/users.py#get_user"]


SIGNALS = """from django.dispatch import Signal

order_placed = Signal()
"""
VIEWS = """from django.db.models.signals import post_save

from shop import signals
from shop.signals import order_placed


def place(request):
    order_placed.send(sender=None, order=request)


def place_again(request):
    signals.order_placed.send_robust(sender=None)


def save(instance):
    post_save.send(sender=type(instance), instance=instance)


def mail(message):
    message.send()  # an EmailMessage sends too: not a signal
"""
HANDLERS = """from django.db.models.signals import post_save
from django.dispatch import receiver

from shop.signals import order_placed


@receiver(order_placed)
def notify(sender, **kwargs):
    return kwargs


@receiver([order_placed, post_save])
def count(sender, **kwargs):
    return sender


def audit(sender, **kwargs):
    return sender


order_placed.connect(audit)
post_save.connect(audit)
"""


def test_django_signals_link_senders_to_receivers(tmp_path: Path) -> None:
    shop = write(
        tmp_path / "shop",
        {
            "shop/__init__.py": "",
            "shop/signals.py": SIGNALS,
            "shop/views.py": VIEWS,
            "shop/handlers.py": HANDLERS,
        },
    )
    with workspace(tmp_path) as engine:
        engine.add_repo(shop, name="shop")
        found = {(r[0].rpartition("#")[2], r[1], r[2].rpartition("#")[2], r[3], r[5], r[7])
                 for r in event_links(engine)}  # fmt: skip
    placed = "event:django/shop/shop/signals.py#order_placed"
    saved = "event:django/shop/django.db.models.signals.post_save"
    assert found == {
        # the signal is its definition, reached through `from … import` or the module
        ("place", placed, "notify", 0.8, 8, 7),
        ("place", placed, "count", 0.8, 8, 12),
        ("place", placed, "audit", 0.8, 8, 21),
        ("place_again", placed, "notify", 0.8, 12, 7),
        ("place_again", placed, "count", 0.8, 12, 12),
        ("place_again", placed, "audit", 0.8, 12, 21),
        # a signal from outside, in the repository using it
        ("save", saved, "count", 0.8, 16, 12),
        ("save", saved, "audit", 0.8, 16, 22),
    }


PIKA = """import pika

QUEUE = "emails"
connection = pika.BlockingConnection(pika.ConnectionParameters("rabbit"))
channel = connection.channel()


def send_email(body):
    channel.basic_publish(exchange="", routing_key=QUEUE, body=body)


def broadcast(body):
    channel.basic_publish(exchange="news", routing_key="emails", body=body)


def on_email(ch, method, properties, body):
    return body


def work():
    channel.basic_consume(queue="emails", on_message_callback=on_email)
"""
NATS = """import nats

SUBJECT = "greet.joe"


async def greet():
    nc = await nats.connect("nats://nats")
    await nc.publish(SUBJECT, b"hello")


async def handle(msg):
    return msg


async def listen():
    nc = await nats.connect("nats://nats")
    await nc.subscribe("greet.joe", cb=handle)
"""
SQS = """import boto3

QUEUE_URL = "https://sqs.eu-west-1.amazonaws.com/123456789012/invoices"
sqs = boto3.client("sqs")


def enqueue(invoice):
    sqs.send_message(QueueUrl=QUEUE_URL, MessageBody=invoice)


def drain():
    return sqs.receive_message(QueueUrl="https://sqs.eu-west-1.amazonaws.com/9/invoices")
"""
AMQPLIB = """const amqp = require('amqplib');

async function main() {
  const connection = await amqp.connect('amqp://rabbit');
  const channel = await connection.createChannel();
  channel.sendToQueue('emails', Buffer.from('hi'));
  channel.consume('emails', onMessage);
}

function onMessage(message) {
  return message;
}
"""


def test_rabbitmq_nats_and_sqs(tmp_path: Path) -> None:
    mq = write(tmp_path / "mq", {"mail.py": PIKA, "greet.py": NATS, "billing.py": SQS})
    web = write(tmp_path / "web", {"worker.js": AMQPLIB})
    with workspace(tmp_path) as engine:
        engine.add_repo(mq, name="mq")
        engine.add_repo(web, name="web")
        found = {(r[0], r[1], r[2], r[3], r[4], r[5], r[7]) for r in event_links(engine)}
        sides = topic_sides(engine)
    assert found == {
        # the default exchange: the routing key names the queue
        ("mq/mail.py#send_email", "event:amqp/emails", "mq/mail.py#on_email", 0.8, "constant",
         9, 21),
        ("mq/mail.py#send_email", "event:amqp/emails", "web/worker.js#onMessage", 0.8,
         "constant", 9, 7),
        ("web/worker.js#main", "event:amqp/emails", "mq/mail.py#on_email", 0.9, "literal", 6,
         21),
        ("web/worker.js#main", "event:amqp/emails", "web/worker.js#onMessage", 0.9, "literal",
         6, 7),
        ("mq/greet.py#greet", "event:nats/greet.joe", "mq/greet.py#handle", 0.8, "constant", 8,
         17),
        # a queue URL: the queue's name
        ("mq/billing.py#enqueue", "event:sqs/invoices", "mq/billing.py#drain", 0.8, "constant",
         8, 12),
    }  # fmt: skip
    # a named exchange routes through bindings, which are not read: its own topic
    assert ("emits", "mq/mail.py#broadcast", "event:amqp/news/emails", 0.9, "literal", 13) in sides


def test_changes_and_removals_relink_events(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        shop = add_fixture(engine, tmp_path, "services/kafka/shop", "shop")
        billing = add_fixture(engine, tmp_path, "services/kafka/billing", "billing")
        # events.py reads the topic from topics.py: a new name there re-links it
        topics = shop / "shop" / "topics.py"
        text = topics.read_text(encoding="utf-8").replace('"orders"', '"orders.v2"')
        topics.write_text(text, encoding="utf-8")
        engine.index(shop, name="shop")
        assert ("emits", f"{E}#place_order", "event:kafka/orders.v2", 0.8, "constant", 16) in (
            topic_sides(engine)
        )
        assert not {r for r in event_links(engine) if r[0] == f"{E}#place_order"}
        worker = billing / "audit" / "worker.py"
        text = worker.read_text(encoding="utf-8").replace('["shipments", "audit"]', '["audit"]')
        worker.write_text(text, encoding="utf-8")
        engine.index(billing, name="billing")
        assert {(r[0], r[2]) for r in event_links(engine) if r[2].startswith(A)} == {
            (f"{E}#Outbox.flush", f"{A}#audit_shipments"),
            (f"{E}#invalidate", f"{A}#watch_cache"),
        }
        engine.remove_repo("billing")
        assert event_links(engine) == set()
        assert {s[0] for s in topic_sides(engine)} == {"emits"}


def test_the_weaker_side_decides_and_a_function_never_links_to_itself() -> None:
    def side(kind: str, source: str, topic: str, confidence: float, via: str) -> Edge:
        return Edge(source, topic, kind, 1.0, confidence, via=via, evidence_path="f.py",
                    evidence_line=3)  # fmt: skip

    owned = [
        ("a", side("emits", "a/f.py#p", "event:kafka/t", 0.9, "literal")),
        ("b", side("listens", "b/f.py#c", "event:kafka/t", 0.8, "constant")),
        ("b", side("listens", "b/f.py#r", "event:redis/t", 0.9, "literal")),
        ("a", side("listens", "a/f.py#p", "event:kafka/t", 0.9, "literal")),
    ]
    rows = [e for edges in link_events(owned).values() for e in edges]
    assert [(e.source, e.target, e.name, e.confidence, e.via, e.target_repo) for e in rows] == [
        ("a/f.py#p", "b/f.py#c", "event:kafka/t", 0.8, "constant", "b")
    ]
    assert list(link_events(owned)) == [("a", "f.py")]


def test_every_event_call_keeps_its_arguments() -> None:
    assert {verb for _, verb in APIS} <= EVENT_CALLS
    assert event_api("kafka.KafkaProducer.send") is not None
    assert event_api("django.core.mail.EmailMessage.send") is None
    assert event_api("requests.Session.send") is None
