"""rpc links across a service estate: the rpcs `.proto` files declare are nodes
(`rpc:package.Service/Method`), servers implementing them link to them (`serves`), and
client stubs link to the implementing methods (`rpc`), with the evidence line of each
side and a confidence saying how the rpc was told.

The gRPC estate (tests/fixtures/graph/services/grpc/) is a Python server holding
shop.proto and a Go client calling both rpcs; its decoys (a servicer method no rpc
declares, a Go method named like an rpc on an unrelated type) must not link. The
polyglot estate (…/grpc-polyglot/) has a server and a client of one service in each
language that has a shape for them."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from codecompass.cli import main
from codecompass.engine import Engine
from codecompass.graph.rpc import link_rpc
from codecompass.indexing.extract import extract_facts
from codecompass.indexing.facts import Endpoint
from codecompass.indexing.parse import parse
from codecompass.models import EdgeQuery, HttpFact
from tests.graph.helpers import TypedLink, add_fixture, recall, typed_links, workspace, write

# type, source, target, rpc, confidence, via, source line, other side's repo/path:line
Link = TypedLink

S = "checkout/checkout/server.py#CheckoutService"
G = "storefront/orders/orders.go"
GRPC_LINKS = {
    # class CheckoutService(shop_pb2_grpc.CheckoutServicer), also registered through
    # add_CheckoutServicer_to_server: the base class tells it (via), the method's own
    # line is the evidence
    ("serves", f"{S}.PlaceOrder", "rpc:shop.Checkout/PlaceOrder", "shop.Checkout/PlaceOrder",
     0.9, "servicer", 14, "checkout/protos/shop.proto:8"),
    ("serves", f"{S}.GetOrder", "rpc:shop.Checkout/GetOrder", "shop.Checkout/GetOrder",
     0.9, "servicer", 19, "checkout/protos/shop.proto:9"),
    # o.checkout.PlaceOrder(…) on a field declared pb.CheckoutClient
    ("rpc", f"{G}#Orders.Buy", f"{S}.PlaceOrder", "shop.Checkout/PlaceOrder", 0.9, "stub", 21,
     "checkout/checkout/server.py:14"),
    # client := pb.NewCheckoutClient(conn); client.GetOrder(…)
    ("rpc", f"{G}#Track", f"{S}.GetOrder", "shop.Checkout/GetOrder", 0.9, "stub", 30,
     "checkout/checkout/server.py:19"),
}  # fmt: skip


def rpc_links(engine: Engine) -> set[Link]:
    return typed_links(engine, ("serves", "rpc"))


def grpc_estate(engine: Engine, tmp_path: Path) -> None:
    add_fixture(engine, tmp_path, "services/grpc/checkout", "checkout")
    add_fixture(engine, tmp_path, "services/grpc/storefront", "storefront")


def test_grpc_estate_links_exactly_the_expected_servers_and_stubs(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        grpc_estate(engine, tmp_path)
        found = rpc_links(engine)
        assert found == GRPC_LINKS
        assert recall(found, GRPC_LINKS) == 1.0
        # the decoys: Cart.PlaceOrder and its caller, a servicer method no rpc declares
        ends = {end for link in found for end in link[1:3]}
        assert not {e for e in ends if e.endswith(("Cart.PlaceOrder", "#Checkout"))}
        assert f"{S}.CancelOrder" not in ends
        # the call of the look-alike stays a plain call
        calls = engine.backend.edges.edges(
            EdgeQuery(types=["calls"], sources=["storefront/orders/cart.go#Checkout"])
        )
        assert [e.target for e in calls] == ["storefront/orders/cart.go#Cart.PlaceOrder"]
        # an rpc node is no dangling target: `verify` said so of every gRPC index
        report = engine.verify()
        assert (report.ok, report.findings) == (True, [])


def test_links_lists_rpc_links_with_both_ends(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        grpc_estate(engine, tmp_path)
    out = CliRunner().invoke(
        main, ["links", "--via", "rpc", "--json", "--data-dir", str(tmp_path / "data")]
    )
    assert out.exit_code == 0, out.output
    result = json.loads(out.output)
    assert result["counts"] == {"rpc": 4}
    # gRPC, as the docs call it, is rpc
    grpc = CliRunner().invoke(
        main, ["links", "--via", "grpc", "--json", "--data-dir", str(tmp_path / "data")]
    )
    assert (grpc.exit_code, grpc.output) == (0, out.output)
    assert result["links"] == [
        {
            "via": "rpc",
            "name": "shop.Checkout/PlaceOrder",
            "confidence": 0.9,
            "how": "servicer",
            "source": {"id": f"{S}.PlaceOrder", "repo": "checkout", "path": "checkout/server.py",
                       "line": 14},
            "target": {"id": "rpc:shop.Checkout/PlaceOrder", "repo": "checkout",
                       "path": "protos/shop.proto", "line": 8},
        },
        {
            "via": "rpc",
            "name": "shop.Checkout/GetOrder",
            "confidence": 0.9,
            "how": "servicer",
            "source": {"id": f"{S}.GetOrder", "repo": "checkout", "path": "checkout/server.py",
                       "line": 19},
            "target": {"id": "rpc:shop.Checkout/GetOrder", "repo": "checkout",
                       "path": "protos/shop.proto", "line": 9},
        },
        {
            "via": "rpc",
            "name": "shop.Checkout/PlaceOrder",
            "confidence": 0.9,
            "how": "stub",
            "source": {"id": f"{G}#Orders.Buy", "repo": "storefront", "path": "orders/orders.go",
                       "line": 21},
            "target": {"id": f"{S}.PlaceOrder", "repo": "checkout", "path": "checkout/server.py",
                       "line": 14},
        },
        {
            "via": "rpc",
            "name": "shop.Checkout/GetOrder",
            "confidence": 0.9,
            "how": "stub",
            "source": {"id": f"{G}#Track", "repo": "storefront", "path": "orders/orders.go",
                       "line": 30},
            "target": {"id": f"{S}.GetOrder", "repo": "checkout", "path": "checkout/server.py",
                       "line": 19},
        },
    ]  # fmt: skip
    people = CliRunner().invoke(
        main,
        ["links", "--via", "rpc", "--repo", "storefront", "--data-dir", str(tmp_path / "data")],
    )
    assert people.exit_code == 0, people.output
    assert "shop.Checkout/GetOrder" in people.output and "2 links (2 rpc)" in people.output


def test_an_rpc_is_a_node_and_callers_and_dependencies_follow_rpc_links(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        grpc_estate(engine, tmp_path)
        node_id = "rpc:shop.Checkout/PlaceOrder"
        node = engine.graph.nodes([node_id])[node_id]
        assert (node.kind, node.name, node.repo) == ("rpc", "shop.Checkout/PlaceOrder", None)
        walk = engine.traverse(node_id, direction="in", depth=1)
        assert {(e.type, e.source) for e in walk.edges} == {("serves", f"{S}.PlaceOrder")}
        callers = engine.callers(f"{S}.PlaceOrder")
        assert [(e.source, e.type, e.evidence_line) for e in callers.edges] == [
            (f"{G}#Orders.Buy", "rpc", 21)
        ]
        # the rpc's symbol in its .proto stands for the rpc: its links are the rpc node's
        declared = engine.callers("checkout/protos/shop.proto#Checkout.PlaceOrder")
        assert {(e.source, e.type) for e in declared.edges} == {
            (f"{S}.PlaceOrder", "serves"),
            (f"{G}#Orders.Buy", "rpc"),
        }
        deps = engine.dependencies(f"{G}#Track", types=["rpc"])
        assert [e.target for e in deps.edges] == [f"{S}.GetOrder"]
        served = engine.dependencies(f"{S}.GetOrder", types=["serves"])
        assert [e.target for e in served.edges] == ["rpc:shop.Checkout/GetOrder"]


def test_a_stub_of_an_rpc_no_indexed_server_implements_links_to_the_rpc(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        grpc_estate(engine, tmp_path)
        server = tmp_path / "checkout" / "checkout" / "server.py"
        text = server.read_text(encoding="utf-8")
        server.write_text(text.replace("def GetOrder(", "def get_order("), encoding="utf-8")
        engine.index(tmp_path / "checkout", name="checkout")
        found = rpc_links(engine)
        assert ("rpc", f"{G}#Track", "rpc:shop.Checkout/GetOrder", "shop.Checkout/GetOrder", 0.9,
                "stub", 30, "checkout/protos/shop.proto:9") in found  # fmt: skip
        assert not {link for link in found if link[1] == f"{S}.get_order"}
        # removing the server's repository takes the proto with it: nothing is left
        engine.remove_repo("checkout")
        assert rpc_links(engine) == set()


P = "ledger/server"
POLYGLOT_LINKS = {
    # Go: pb.RegisterPaymentsServer(s, &server{}) in main.go, the method in charge.go
    # (the evidence: the method's own line, in its own file)
    ("serves", f"{P}/charge.go#server.Charge", "rpc:pay.Payments/Charge", "pay.Payments/Charge",
     0.9, "registered", 9, "ledger/proto/pay.proto:6"),
    # Go: a struct embedding pb.UnimplementedPaymentsServer
    ("serves", f"{P}/charge.go#refunds.Refund", "rpc:pay.Payments/Refund", "pay.Payments/Refund",
     0.9, "servicer", 17, "ledger/proto/pay.proto:7"),
    # Java: extends PaymentsGrpc.PaymentsImplBase (a method named `charge`, its
    # definition starting at its @Override)
    ("serves", "bank/src/main/java/com/bank/PaymentsImpl.java#PaymentsImpl.charge",
     "rpc:pay.Payments/Charge", "pay.Payments/Charge", 0.9, "servicer", 9,
     "ledger/proto/pay.proto:6"),
    # C#: Payments.PaymentsBase
    ("serves", "teller/Teller.cs#PaymentsService.Charge", "rpc:pay.Payments/Charge",
     "pay.Payments/Charge", 0.9, "servicer", 9, "ledger/proto/pay.proto:6"),
    # Node: server.addService(pay.Payments.service, { refund })
    ("serves", "web/src/payments.js#refund", "rpc:pay.Payments/Refund", "pay.Payments/Refund",
     0.9, "registered", 11, "ledger/proto/pay.proto:7"),
}  # fmt: skip
CHARGERS = {
    f"{P}/charge.go#server.Charge": "ledger/server/charge.go:9",
    "bank/src/main/java/com/bank/PaymentsImpl.java#PaymentsImpl.charge":
        "bank/src/main/java/com/bank/PaymentsImpl.java:9",
    "teller/Teller.cs#PaymentsService.Charge": "teller/Teller.cs:9",
}  # fmt: skip
REFUNDERS = {
    f"{P}/charge.go#refunds.Refund": "ledger/server/charge.go:17",
    "web/src/payments.js#refund": "web/src/payments.js:11",
}
CLIENTS = {
    # Python: pay_pb2_grpc.PaymentsStub(channel).Charge(…)
    ("kiosk/pay_client.py#charge", "pay.Payments/Charge", 9): CHARGERS,
    # Node: new pay.Payments(addr, creds) from loadPackageDefinition; client.charge(…)
    ("web/src/payments.js#charge", "pay.Payments/Charge", 8): CHARGERS,
    # Java: a PaymentsBlockingStub local, then newBlockingStub(channel).refund(…) inline
    ("bank/src/main/java/com/bank/Client.java#Client.refund", "pay.Payments/Refund", 10): REFUNDERS,
    ("bank/src/main/java/com/bank/Client.java#Client.refundAgain", "pay.Payments/Refund", 14):
        REFUNDERS,
    # C#: new Payments.PaymentsClient(channel).RefundAsync(…)
    ("teller/Teller.cs#Cashier.Refund", "pay.Payments/Refund", 20): REFUNDERS,
}  # fmt: skip
POLYGLOT_LINKS |= {
    ("rpc", source, server, rpc, 0.9, "stub", line, where)
    for (source, rpc, line), servers in CLIENTS.items()
    for server, where in servers.items()
}


def test_every_language_shape_of_servers_and_stubs_links(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        for name in ("ledger", "web", "bank", "teller", "kiosk"):
            add_fixture(engine, tmp_path, f"services/grpc-polyglot/{name}", name)
        found = rpc_links(engine)
        assert found == POLYGLOT_LINKS
        assert recall(found, POLYGLOT_LINKS) == 1.0


def fact(role: str, pattern: str, node: str, repo: str, path: str, router: str = "") -> HttpFact:
    how = {"serve": "registered", "stub": "stub"}.get(role, "")
    return HttpFact(role, how, pattern, 3, node, repo=repo, path=path, router=router)


def test_a_service_two_packages_declare_is_told_by_the_generated_module_or_is_ambiguous() -> None:
    declared = [
        fact("rpc", "shop.v1.Checkout/PlaceOrder", "a/v1/shop.proto#Checkout.PlaceOrder", "a",
             "v1/shop.proto"),
        fact("rpc", "orders.Checkout/PlaceOrder", "a/orders.proto#Checkout.PlaceOrder", "a",
             "orders.proto"),
        # a copy of shop.proto in the server's repository: one rpc, two declarations
        fact("rpc", "shop.v1.Checkout/PlaceOrder", "s/shop.proto#Checkout.PlaceOrder", "s",
             "shop.proto"),
    ]  # fmt: skip
    server = fact("serve", "Checkout/PlaceOrder", "s/app.py#Impl.PlaceOrder", "s", "app.py",
                  "shop_pb2_grpc")  # fmt: skip
    told = fact("stub", "Checkout/PlaceOrder", "c/a.py#buy", "c", "a.py", "shop_pb2_grpc")
    untold = fact("stub", "Checkout/PlaceOrder", "c/b.go#Buy", "c", "b.go", "pb")
    named = fact("stub", "orders.Checkout/placeOrder", "c/c.js#buy", "c", "c.js")
    edges = {
        (e.type, e.source, e.target, e.confidence, e.via, e.target_repo, e.target_path)
        for rows in link_rpc([*declared, server, told, untold, named]).values()
        for e in rows
    }
    assert edges == {
        # the module `shop_pb2_grpc` says shop.proto; the server's own copy is the evidence
        ("serves", "s/app.py#Impl.PlaceOrder", "rpc:shop.v1.Checkout/PlaceOrder", 0.9,
         "registered", "s", "shop.proto"),
        ("rpc", "c/a.py#buy", "s/app.py#Impl.PlaceOrder", 0.9, "stub", "s", "app.py"),
        # Go's `pb` says nothing: both packages, each 0.4
        ("rpc", "c/b.go#Buy", "s/app.py#Impl.PlaceOrder", 0.4, "ambiguous", "s", "app.py"),
        ("rpc", "c/b.go#Buy", "rpc:orders.Checkout/PlaceOrder", 0.4, "ambiguous", "a",
         "orders.proto"),
        # Node names the package: orders.Checkout, which no server implements
        ("rpc", "c/c.js#buy", "rpc:orders.Checkout/PlaceOrder", 0.9, "stub", "a", "orders.proto"),
    }  # fmt: skip


def test_proto_files_declare_their_rpcs_with_the_package() -> None:
    text = (
        "syntax = 'proto3';\n"
        "// package decoy; in a comment\n"
        "package acme.billing.v2;\n"
        "service Invoices {\n"
        "  // Make one.\n"
        "  rpc Create(Req)\n"
        "      returns (Invoice) {}\n"
        "  rpc List(Req) returns (stream Invoice);\n"
        "}\n"
        "message Req {}\n"
    )
    facts = extract_facts("billing.proto", text, parse(text, "protobuf"))
    assert facts.endpoints == [
        Endpoint("rpc", "acme.billing.v2.Invoices/Create", 6, "Invoices.Create"),
        Endpoint("rpc", "acme.billing.v2.Invoices/List", 8, "Invoices.List"),
    ]
    bare = "service Ping { rpc Ping(E) returns (E); }\n"
    assert extract_facts("p.proto", bare, parse(bare, "protobuf")).endpoints == [
        Endpoint("rpc", "Ping/Ping", 1, "Ping.Ping")
    ]


HEALTH_PROTO = """syntax = "proto3";
package grpc.health.v1;
service Health {
  rpc Check(HealthCheckRequest) returns (HealthCheckResponse);
}
"""
MAIL_PROTO = """syntax = "proto3";
package mail;
service Mailer {
  rpc Send(Message) returns (Empty);
}
"""
MAIL_SERVER = """import demo_pb2_grpc
import health_pb2_grpc


class BaseMailer(demo_pb2_grpc.MailerServicer):
    def Check(self, request, context):
        return None


class DummyMailer(BaseMailer):
    def Send(self, request, context):
        return None


def start(server):
    service = DummyMailer()
    demo_pb2_grpc.add_MailerServicer_to_server(service, server)
    health_pb2_grpc.add_HealthServicer_to_server(service, server)
"""
NODE_SERVER = """const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

function loadProto(path) {
  return grpc.loadPackageDefinition(protoLoader.loadSync(path));
}

const mail = loadProto('mail.proto').mail;

class Relay {
  static send(call, callback) {
    callback(null, {});
  }

  start() {
    this.server = new grpc.Server();
    this.server.addService(mail.Mailer.service, { send: Relay.send.bind(this) });
  }
}

module.exports = Relay;
"""


def test_servers_through_a_base_class_a_second_service_and_an_unread_package(
    tmp_path: Path,
) -> None:
    mailer = tmp_path / "mailer"
    (mailer / "protos").mkdir(parents=True)
    (mailer / "protos" / "health.proto").write_text(HEALTH_PROTO, encoding="utf-8")
    (mailer / "protos" / "mail.proto").write_text(MAIL_PROTO, encoding="utf-8")
    (mailer / "server.py").write_text(MAIL_SERVER, encoding="utf-8")
    relay = tmp_path / "relay"
    relay.mkdir()
    (relay / "relay.js").write_text(NODE_SERVER, encoding="utf-8")
    with workspace(tmp_path) as engine:
        engine.add_repo(mailer, name="mailer")
        engine.add_repo(relay, name="relay")
        found = rpc_links(engine)
    assert found == {
        # DummyMailer is a MailerServicer through BaseMailer
        ("serves", "mailer/server.py#DummyMailer.Send", "rpc:mail.Mailer/Send", "mail.Mailer/Send",
         0.9, "servicer", 11, "mailer/protos/mail.proto:4"),
        # registered for Health too: the Check it inherits from BaseMailer
        ("serves", "mailer/server.py#BaseMailer.Check", "rpc:grpc.health.v1.Health/Check",
         "grpc.health.v1.Health/Check", 0.9, "registered", 6, "mailer/protos/health.proto:4"),
        # `mail` comes from a helper returning loadPackageDefinition(…): the service as
        # written; a static method bound to the server
        ("serves", "relay/relay.js#Relay.send", "rpc:mail.Mailer/Send", "mail.Mailer/Send", 0.9,
         "registered", 11, "mailer/protos/mail.proto:4"),
    }  # fmt: skip


def test_csharp_using_static_names_the_generated_base_and_client(tmp_path: Path) -> None:
    """online-boutique's cart service writes `using static Grpc.Health.V1.Health;` and
    `: HealthBase`, its tests `using static Hipstershop.CartService;` and `new
    CartServiceClient(channel)`: neither server nor client was linked (9 call sites)."""
    till = (
        "using System.Threading.Tasks;\nusing Grpc.Core;\nusing static Pay.Payments;\n\n"
        "namespace Till\n{\n"
        "    public class PaymentsService : PaymentsBase\n    {\n"
        "        public override Task<Receipt> Charge(ChargeRequest request, "
        "ServerCallContext context)\n        {\n"
        "            return Task.FromResult(new Receipt());\n        }\n    }\n\n"
        "    public class Cashier\n    {\n"
        "        public async Task Refund(Grpc.Core.ChannelBase channel, string id)\n"
        "        {\n"
        "            var client = new PaymentsClient(channel);\n"
        "            await client.RefundAsync(new RefundRequest { Id = id });\n"
        "        }\n    }\n}\n"
    )
    write(tmp_path / "till", {"Till.cs": till})
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "services/grpc-polyglot/ledger", "ledger")
        engine.add_repo(tmp_path / "till", name="till")
        found = rpc_links(engine)
    assert {(kind, source, target) for kind, source, target, *_ in found} >= {
        ("serves", "till/Till.cs#PaymentsService.Charge", "rpc:pay.Payments/Charge"),
        ("rpc", "till/Till.cs#Cashier.Refund", "ledger/server/charge.go#refunds.Refund"),
    }
