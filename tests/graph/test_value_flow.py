"""Python value flow on tests/fixtures/graph/pyflow: what a name holds through
assignments, containers, returns, arguments, decorators, iteration and the MRO, each
edge with its confidence and where its target came from (`via`)."""

from __future__ import annotations

from pathlib import Path

from codecompass.engine import Engine
from codecompass.indexing.extract_python import PythonExtractor
from codecompass.indexing.facts import FileFacts
from codecompass.indexing.treesitter import parse_tree
from codecompass.models import EdgeQuery
from tests.graph.helpers import add_fixture, edges, repo_edges, workspace
from tests.graph.test_link import edit

F = "pf/app/flow.py"
H = "pf/app/handlers.py"
CallEdge = tuple[str, str, float, int]  # source, target, confidence, evidence line

CALLS: set[CallEdge] = {
    # `first = second = on_start; first()`
    (F, f"{H}#on_start", 1.0, 5),
    # `left, (middle, right), *rest = on_start, (on_stop, on_start), on_stop, on_start`
    (F, f"{H}#on_stop", 1.0, 6),  # middle()
    (F, f"{H}#on_stop", 1.0, 7),  # rest[0]()
    # `run(on_stop, then=on_start)`: the call, and what `run` calls through them, owned
    # by flow.py and so evidenced by the call passing them (run's own lines, 14 and 15,
    # would point into flow.py)
    (F, f"{H}#run", 1.0, 9),
    (f"{H}#run", f"{H}#on_stop", 0.8, 9),
    (f"{H}#run", f"{H}#on_start", 0.8, 9),
    (f"{H}#run", "?callback", 0.0, 14),  # seen from `run` alone: a parameter
    (f"{H}#run", f"{H}#fallback", 0.6, 15),  # the default, unless a caller passes one
    # `@twice def hello`: applying the decorator calls it; `hello` is now its wrapper,
    # and the wrapper calls what it was given.
    (F, f"{H}#twice", 1.0, 12),
    (F, f"{H}#twice.wrapper", 0.8, 17),
    (f"{H}#twice.wrapper", f"{F}#hello", 0.8, 12),  # at `@twice`
    (f"{H}#twice.wrapper", "?fn", 0.0, 20),
    (f"{H}#twice.wrapper", "?fn", 0.0, 21),
    # `pick("start")()`: what `pick` returns, an element of a dict keyed by a parameter
    (F, f"{H}#pick", 1.0, 18),
    (F, f"{H}#on_start", 0.8, 18),
    (F, f"{H}#on_stop", 0.8, 18),
    # `hooks["a"] = on_stop; hooks["a"]()`: the latest value at that key
    (F, f"{H}#on_stop", 1.0, 21),
    # `Both().step()`: the constructor it inherits, and C3's order (Right before Base)
    (F, f"{F}#Both", 1.0, 45),
    (F, f"{F}#Base.__init__", 1.0, 45),
    (F, f"{F}#Right.step", 0.8, 45),
    # `for item in Numbers(): item()`: the iterator protocol, then what `__next__` gives
    (F, f"{F}#Numbers", 1.0, 56),
    (F, f"{F}#Numbers.__iter__", 0.8, 56),
    (F, f"{F}#Numbers.__next__", 0.8, 56),
    (F, f"{H}#on_stop", 0.8, 57),
    # a generator: its elements are what it yields
    (F, f"{F}#produce", 1.0, 64),
    (F, f"{H}#on_start", 0.8, 65),
    # `raise Failure` instantiates it
    (f"{F}#fail", f"{F}#Failure", 1.0, 74),
    (f"{F}#fail", f"{F}#Failure.__init__", 1.0, 74),
}


def calls(engine: Engine) -> set[CallEdge]:
    return {(s, t, c, line) for s, t, _, c, line in edges(engine, ("calls",))}


def test_values_flow_through_python(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "pyflow", "pf")
        assert calls(engine) == CALLS


def test_evidence_says_where_a_target_came_from(tmp_path: Path) -> None:
    with workspace(tmp_path) as engine:
        add_fixture(engine, tmp_path, "pyflow", "pf")
        found = {
            (e.source, e.target, int(e.evidence_line or 0)): e.via
            for e in engine.backend.edges.edges(EdgeQuery(types=["calls"]))
        }
        assert found[(f"{H}#run", f"{H}#on_stop", 9)] == "argument"
        assert found[(F, f"{H}#twice.wrapper", 17)] == "decorator"
        assert found[(F, f"{F}#Base.__init__", 45)] == "constructor"
        assert found[(F, f"{F}#Numbers.__next__", 56)] == "iteration"
        assert found[(F, f"{H}#on_start", 65)] == "return"


def test_a_callee_body_edit_updates_the_edges_its_callers_own(tmp_path: Path) -> None:
    """`run`'s call of its parameter is an edge run→on_stop that flow.py's resolution
    made; when run stops calling it, flow.py is resolved again and the edge goes."""
    with workspace(tmp_path) as engine:
        repo = add_fixture(engine, tmp_path, "pyflow", "pf")
        edit(repo / "app/handlers.py", "    callback()\n", "    print(callback)\n")
        stats = engine.index(repo, name="pf")
        assert stats.graph["resolved"] == 2  # handlers.py, and flow.py that follows into it
        after = calls(engine)
        assert (f"{H}#run", f"{H}#on_stop", 0.8, 9) not in after
        assert (f"{H}#run", f"{H}#on_start", 0.8, 9) in after
        # an edit that leaves what the body does with its parameters alone costs one file
        edit(repo / "app/handlers.py", "def fallback():\n    pass", "def fallback():\n    x = 1")
        stats = engine.index(repo, name="pf")
        assert (stats.graph["resolved"], stats.graph["dependents"]) == (1, 0)


def test_facts_keep_arguments_parameters_and_results_through_json() -> None:
    source = (
        "def run(cb, *rest, then=None, **options):\n"
        "    cb(then, key=options)\n"
        "    return {'a': cb}\n"
    )
    data = source.encode("utf-8")
    facts = PythonExtractor(data).run(parse_tree("python", data, 5.0))
    again = FileFacts.from_json(facts.to_json())
    assert again == facts
    assert again.functions["run"].params == ["cb", "*rest", "then", "**options"]
    call = next(r for r in again.refs if r.name == "cb")
    assert call.values == [("", "expr:then"), ("key", "expr:options")]
    body = again.scopes[again.functions["run"].scope].bindings
    assert body["<return>"] == [(3, "cont:<return>")]
    assert body["<return>[]"] == [(3, "key:'a:expr:cb")]


def test_django_managers_and_querysets_give_their_models_instances(tmp_path: Path) -> None:
    """healthchecks: `callers Check.get_status` found 3 of 13 call sites. A model's
    `objects` (an attribute Django adds) was an outside name, so `Check.objects.get(…)`,
    `get_object_or_404(Check, …)` and a loop over `Check.objects.filter(…)` held nothing
    of the repository."""
    models = (
        "from django.db import models\n\n\n"
        "class Check(models.Model):\n"
        "    def get_status(self):\n        return 'up'\n\n"
        "    def ping(self):\n"
        "        self = Check.objects.select_for_update().get(id=self.id)\n"
        "        self.prune()\n\n"
        "    def prune(self):\n        pass\n"
    )
    views = (
        "from django.shortcuts import get_object_or_404\n\n"
        "from hc.models import Check\n\n\n"
        "def details(request, code):\n"
        "    check = get_object_or_404(Check, code=code)\n"
        "    check.get_status()\n"
        "    Check.objects.get(code=code).ping()\n"
        "    for c in Check.objects.filter(user=request.user).order_by('name'):\n"
        "        c.get_status()\n"
        "    Check.objects.filter(code=code).first().ping()\n"
        "    Check.objects.all()[0].prune()\n"
        "    found, created = Check.objects.get_or_create(code=code)\n"
        "    found.ping()\n"
        "    Check.objects.count()\n"
        "    get_object_or_404(Check.objects.filter(code=code), id=1).prune()\n"
    )
    files = {"hc/__init__.py": "", "hc/models.py": models, "hc/views.py": views}
    found = repo_edges(tmp_path, "hc", files, ("calls",))
    m, v = "hc/hc/models.py#Check", "hc/hc/views.py#details"
    assert {(s, t, c, line) for s, t, _, c, line in found if t.startswith(m + ".")} == {
        (f"{m}.ping", f"{m}.prune", 0.8, 10),  # `self` rebound to a Check
        (v, f"{m}.get_status", 0.8, 8),
        (v, f"{m}.ping", 0.8, 9),
        (v, f"{m}.get_status", 0.8, 11),
        (v, f"{m}.ping", 0.8, 12),
        (v, f"{m}.prune", 0.8, 13),
        (v, f"{m}.prune", 0.8, 17),
        # get_or_create gives a pair (not followed)
    }


def test_a_reverse_relation_gives_the_related_models_rows(tmp_path: Path) -> None:
    """A model reaches the rows that point at it through `<model>_set`, Django's name for a
    foreign key's reverse side (djangoproject.com: `hero.donation_set.create(…)`,
    `self.securityissue_set.all()`); the name was an outside attribute of `Model`."""
    models = (
        "from django.db import models\n\n\n"
        "class Hero(models.Model):\n"
        "    def total(self):\n"
        "        for issue in self.securityissue_set.all():\n"
        "            issue.weigh()\n\n\n"
        "class SecurityIssue(models.Model):\n"
        "    hero = models.ForeignKey(Hero, on_delete=models.CASCADE)\n\n"
        "    def weigh(self):\n        pass\n\n\n"
        "class Donation(models.Model):\n"
        "    hero = models.ForeignKey(Hero, on_delete=models.CASCADE)\n\n"
        "    def receipt(self):\n        pass\n\n\n"
        "class Plain:\n"
        "    def run(self):\n        self.donation_set.first().receipt()\n"
    )
    views = (
        "from fund.models import Hero\n\n\n"
        "def thank(hero: Hero):\n"
        "    hero.donation_set.create(amount=5).receipt()\n"
        "    hero.donation_set.filter(amount=5).first().receipt()\n"
        "    hero.payment_set.first().refund()\n"
    )
    files = {"fund/__init__.py": "", "fund/models.py": models, "fund/views.py": views}
    found = repo_edges(tmp_path, "fund", files, ("calls",))
    m = "fund/fund/models.py"
    assert {(s, t, c, line) for s, t, _, c, line in found if t.startswith(m + "#")} == {
        (f"{m}#Hero.total", f"{m}#SecurityIssue.weigh", 0.8, 7),
        ("fund/fund/views.py#thank", f"{m}#Donation.receipt", 0.8, 5),
        ("fund/fund/views.py#thank", f"{m}#Donation.receipt", 0.8, 6),
        # `Plain` is no model: its `donation_set` is nothing Django made (the one
        # `receipt` of the repository, guessed by name); `payment_set` names no model
        (f"{m}#Plain.run", f"{m}#Donation.receipt", 0.4, 26),
    }


def test_a_custom_manager_keeps_its_methods_and_the_models_rows(tmp_path: Path) -> None:
    """djangoproject.com: 17 models declare `objects = SomeManager()` or
    `SomeQuerySet.as_manager()`; their `Model.objects.get(…)` gave nothing of the
    repository (`?…Manager.get.get_expiry_date`)."""
    models = (
        "from django.db import models\n\n\n"
        "class CheckManager(models.Manager):\n"
        "    def for_user(self, user):\n        return self.filter(user=user)\n\n\n"
        "class MetricQuerySet(models.QuerySet):\n"
        "    def live(self):\n        return self.filter(live=True)\n\n\n"
        "class Check(models.Model):\n"
        "    objects = CheckManager()\n\n"
        "    def ping(self):\n        pass\n\n\n"
        "class Metric(models.Model):\n"
        "    objects = MetricQuerySet.as_manager()\n\n"
        "    def fetch(self):\n        pass\n"
    )
    views = (
        "from hc.models import Check, Metric\n\n\n"
        "def run(user):\n"
        "    Check.objects.get(id=1).ping()\n"
        "    Check.objects.for_user(user)\n"
        "    Metric.objects.filter(x=1).first().fetch()\n"
    )
    files = {"hc/__init__.py": "", "hc/models.py": models, "hc/views.py": views}
    found = repo_edges(tmp_path, "hc", files, ("calls",))
    m = "hc/hc/models.py"
    assert {(t, line) for s, t, _, c, line in found if s == "hc/hc/views.py#run"} >= {
        (f"{m}#Check.ping", 5),
        (f"{m}#CheckManager.for_user", 6),
        (f"{m}#Metric.fetch", 7),
    }


def test_isinstance_narrows_a_name_in_its_branch(tmp_path: Path) -> None:
    """`if isinstance(shape, Circle): shape.radius()` called `Shape.radius`, or nothing:
    the branch sees a Circle (a tuple, either class), the code after it the declared
    type again; after `if not isinstance(x, C): raise …` the rest of the block sees a C."""
    shapes = (
        "class Shape:\n"
        "    def area(self):\n"
        "        return 0\n\n\n"
        "class Circle(Shape):\n"
        "    def radius(self):\n"
        "        return 1\n\n\n"
        "class Square(Shape):\n"
        "    def side(self):\n"
        "        return 2\n"
    )
    use = (
        "from shapes import Circle, Shape, Square\n\n\n"
        "def describe(shape: Shape, other):\n"
        "    if isinstance(shape, Circle):\n"
        "        shape.radius()\n"
        "    elif isinstance(shape, (Square, Circle)):\n"
        "        shape.side()\n"
        "    shape.area()\n"
        "    if not isinstance(other, Square):\n"
        "        raise TypeError('a square, please')\n"
        "    other.side()\n"
    )
    found = repo_edges(tmp_path, "geo", {"shapes.py": shapes, "use.py": use}, ("calls",))
    d, s = "geo/use.py#describe", "geo/shapes.py"
    assert {(t, c, line) for src, t, _, c, line in found if src == d} == {
        (f"{s}#Circle.radius", 0.8, 6),
        (f"{s}#Square.side", 0.8, 8),
        (f"{s}#Shape.area", 0.8, 9),
        (f"{s}#Square.side", 0.8, 12),
    }


def test_a_module_constant_or_function_read_as_a_value_is_referenced(tmp_path: Path) -> None:
    """`callers DEFAULT_LIMIT` had nothing to say: a name read but not called made no
    edge. A module's constant or function, defined or imported at the top level, read in
    a function, a class body, a default or another constant, or through its module
    (`settings.DEFAULT_LIMIT`), is referenced there (via `value`); a local, a parameter,
    a loop variable or a class attribute of that name, a class named as a value and a
    call make no such edge."""
    settings = "DEFAULT_LIMIT = 30\n\n\nclass Limit:\n    pass\n"
    use = (
        "from settings import DEFAULT_LIMIT, Limit\n\n"
        "MAX = 3\n"
        "TABLE = {'a': MAX}\n\n\n"
        "def by_name(item):\n"
        "    return item\n\n\n"
        "class Box:\n"
        "    SIZE = MAX\n\n"
        "    def run(self, items, key=by_name):\n"
        "        limit = DEFAULT_LIMIT\n"
        "        sorted(items, key=by_name)\n"
        "        by_name(items)\n"
        "        if isinstance(items, Limit):\n"
        "            return SIZE\n"
        "        return TABLE\n\n\n"
        "def shadow(MAX, items):\n"
        "    for by_name in items:\n"
        "        pass\n"
        "    DEFAULT_LIMIT = 1\n"
        "    return MAX + DEFAULT_LIMIT + by_name\n"
    )
    through = (
        "import settings\n"
        "from use import Box\n\n\n"
        "def configure(items):\n"
        "    sorted(items, key=settings.by_key)\n"
        "    return settings.DEFAULT_LIMIT + Box.SIZE + settings.lowered\n"
    )
    settings += "\n\ndef by_key(item):\n    return item\n\n\nlowered = 1\n"
    files = {"settings.py": settings, "use.py": use, "through.py": through}
    found = repo_edges(tmp_path, "v", files, ("references",))
    u = "v/use.py"
    assert {(src, t, c, line) for src, t, _, c, line in found} == {
        # through the module: its constant, and its function handed on as an argument
        ("v/through.py#configure", "v/settings.py#by_key", 0.9, 6),
        ("v/through.py#configure", "v/settings.py#DEFAULT_LIMIT", 0.9, 7),
        (f"{u}#TABLE", f"{u}#MAX", 1.0, 4),
        (f"{u}#Box", f"{u}#MAX", 1.0, 12),
        # the default, in the class's scope: one edge a function and name, its first read
        (f"{u}#Box.run", f"{u}#by_name", 1.0, 14),
        (f"{u}#Box.run", "v/settings.py#DEFAULT_LIMIT", 1.0, 15),
        (f"{u}#Box.run", f"{u}#TABLE", 1.0, 20),
    }


def test_a_constant_read_through_its_attributes_is_referenced(tmp_path: Path) -> None:
    """An outside audit: `callers PERMISSIONS` said "(none)" against 20 readers, all
    writing `PERMISSIONS.create`, and `callers _HOSTNAME` missed `_HOSTNAME.match(host)`:
    the object of an attribute read or call is read too. Each decorated method, default
    and constant of a class body or the module reads for its own symbol (only the first
    had counted); a class named so (`Box.SIZE`) still makes no edge, and a function reads
    a name once (its first line)."""
    consts = (
        "import re\n\n"
        "PERMISSIONS = {'create': 'website:create'}\n"
        "_HOSTNAME = re.compile('[a-z]+')\n"
        "LIMIT = 10\n\n\n"
        "class Box:\n    SIZE = 3\n"
    )
    use = (
        "import functools\n"
        "from consts import PERMISSIONS, _HOSTNAME, LIMIT, Box\n\n"
        "FIRST = LIMIT + 1\n"
        "SECOND = LIMIT + 2\n\n\n"
        "def can_create(user):\n"
        "    return PERMISSIONS.get('create') in user.grants or PERMISSIONS['create']\n\n\n"
        "def valid(host):\n"
        "    return bool(_HOSTNAME.match(host)) and Box.SIZE\n\n\n"
        "class Pager:\n"
        "    @functools.lru_cache(LIMIT)\n"
        "    def first(self, n=LIMIT):\n"
        "        return n\n\n"
        "    @functools.lru_cache(LIMIT)\n"
        "    def second(self, n=LIMIT):\n"
        "        return n\n"
    )
    found = repo_edges(tmp_path, "v", {"consts.py": consts, "use.py": use}, ("references",))
    u, c = "v/use.py", "v/consts.py"
    assert {(src, t, conf, line) for src, t, _, conf, line in found} == {
        (f"{u}#FIRST", f"{c}#LIMIT", 1.0, 4),
        (f"{u}#SECOND", f"{c}#LIMIT", 1.0, 5),
        (f"{u}#can_create", f"{c}#PERMISSIONS", 1.0, 9),
        (f"{u}#valid", f"{c}#_HOSTNAME", 1.0, 13),
        (f"{u}#Pager.first", f"{c}#LIMIT", 1.0, 17),
        (f"{u}#Pager.second", f"{c}#LIMIT", 1.0, 21),
    }


def test_a_typescript_constant_read_through_its_members_is_referenced(tmp_path: Path) -> None:
    """Umami reads its enum-like objects as `PERMISSIONS.websiteCreate` and
    `SESSION_COLUMNS.includes(column)`, and constants as destructured parameters'
    defaults (`{ maxWidth = DEFAULT_WIDTH }`); `callers` found none of their readers."""
    constants = (
        "export const PERMISSIONS = { websiteCreate: 'website:create' };\n"
        "export const SESSION_COLUMNS = ['browser', 'os'];\n"
    )
    use = (
        "import { PERMISSIONS, SESSION_COLUMNS } from './constants';\n\n"
        "export function canCreate(grants: string[]) {\n"
        "  return grants.includes(PERMISSIONS.websiteCreate);\n"
        "}\n\n"
        "export function isSessionColumn(column: string) {\n"
        "  return SESSION_COLUMNS.includes(column);\n"
        "}\n"
    )
    page = (
        "import { PERMISSIONS, SESSION_COLUMNS } from './constants';\n\n"
        "export function PageBody({ maxWidth = SESSION_COLUMNS.length, PERMISSIONS }) {\n"
        "  return maxWidth + PERMISSIONS.length;\n"
        "}\n"
    )
    files = {"src/constants.ts": constants, "src/use.ts": use, "src/Page.tsx": page}
    found = repo_edges(tmp_path, "u", files, ("references",))
    # A destructured parameter's default is read; its names are the function's own.
    assert {(src, t, conf, line) for src, t, _, conf, line in found} == {
        ("u/src/use.ts#canCreate", "u/src/constants.ts#PERMISSIONS", 1.0, 4),
        ("u/src/use.ts#isSessionColumn", "u/src/constants.ts#SESSION_COLUMNS", 1.0, 8),
        ("u/src/Page.tsx#PageBody", "u/src/constants.ts#SESSION_COLUMNS", 1.0, 3),
    }


def test_a_destructuring_declaration_binds_its_names_and_reads_its_defaults(
    tmp_path: Path,
) -> None:
    """`const [a, b = FALLBACK] = pair` had bound `FALLBACK` as a local, and
    `const { size = DEFAULT_SIZE, ...rest } = props` bound neither name nor read the
    default: a module function of a destructured name was taken for the local."""
    constants = "export const FALLBACK = 1;\nexport const DEFAULT_SIZE = 2;\n"
    use = (
        "import { FALLBACK, DEFAULT_SIZE } from './constants';\n\n"
        "function size() { return 3; }\n"
        "function rest() { return 4; }\n"
        "function nested() { return 5; }\n\n"
        "export function pick(pair: number[]) {\n"
        "  const [first, second = FALLBACK] = pair;\n"
        "  return first + second;\n"
        "}\n\n"
        "export function Card(props: any) {\n"
        "  const { size = DEFAULT_SIZE, outer: { nested }, ...rest } = props;\n"
        "  return size() + nested() + rest();\n"
        "}\n"
    )
    files = {"src/constants.ts": constants, "src/use.ts": use}
    found = repo_edges(tmp_path, "d", files, ("references", "calls"))
    resolved = {(src, t, conf, line) for src, t, _, conf, line in found if conf > 0}
    assert resolved == {
        ("d/src/use.ts#pick", "d/src/constants.ts#FALLBACK", 1.0, 8),
        ("d/src/use.ts#Card", "d/src/constants.ts#DEFAULT_SIZE", 1.0, 13),
    }


def test_an_except_clause_references_the_classes_it_catches(tmp_path: Path) -> None:
    """Who handles `InvalidURL`? `raise` sites were calls of the class; the `except`
    clauses that catch it were nothing. Each class of the repository an `except` names,
    alone, in a tuple or through its module, is referenced (via `except`); a builtin or
    an outside class is not."""
    errors = "class InvalidURL(ValueError):\n    pass\n\n\nclass Timeout(Exception):\n    pass\n"
    use = (
        "import errors\n"
        "from errors import InvalidURL\n"
        "from requests import ConnectionError\n\n\n"
        "def fetch(url):\n"
        "    try:\n"
        "        raise InvalidURL(url)\n"
        "    except InvalidURL:\n"
        "        return None\n"
        "    except (KeyError, errors.Timeout) as caught:\n"
        "        return caught\n"
        "    except ConnectionError:\n"
        "        return 0\n"
    )
    found = repo_edges(tmp_path, "c", {"errors.py": errors, "use.py": use}, ("references",))
    assert {(src, t, c, line) for src, t, _, c, line in found} == {
        ("c/use.py#fetch", "c/errors.py#InvalidURL", 1.0, 9),
        ("c/use.py#fetch", "c/errors.py#Timeout", 0.9, 11),
    }
    with workspace(tmp_path) as engine:
        engine.add_repo(tmp_path / "c", name="c")
        users = engine.callers("InvalidURL")
    assert {(e.source, e.type, e.via, e.evidence_line) for e in users.edges} == {
        ("c/use.py#fetch", "calls", "import", 8),
        ("c/use.py#fetch", "references", "except", 9),
    }


def test_a_script_module_constant_or_function_read_as_a_value_is_referenced(
    tmp_path: Path,
) -> None:
    """As in Python: `callers MAX_RETRIES` of a TypeScript module had nothing to say. A
    name read in a function (an operand, an argument, an object's shorthand, a JSX
    attribute), or read through a namespace import, references the module's constant or
    function; a parameter, a local, a call and an export list make no such edge."""
    config = (
        "export const MAX_RETRIES = 3;\n"
        "export function byName(a: string, b: string) { return a.localeCompare(b); }\n"
        "export { byName as compare };\n"
    )
    client = (
        'import { MAX_RETRIES, byName } from "./config";\n'
        'import * as config from "./config";\n\n'
        "export function fetchAll(items: string[], byName2 = byName) {\n"
        "  const tries = MAX_RETRIES + config.MAX_RETRIES;\n"
        "  items.sort(byName);\n"
        "  byName(items[0], items[1]);\n"
        "  return { MAX_RETRIES, tries };\n"
        "}\n\n"
        "export function shadow(MAX_RETRIES: number) {\n"
        "  const byName = 1;\n"
        "  return MAX_RETRIES + byName;\n"
        "}\n\n"
        "export const limit = () => config.MAX_RETRIES;\n"
    )
    files = {"src/config.ts": config, "src/client.ts": client}
    found = repo_edges(tmp_path, "t", files, ("references",))
    c, f = "t/src/client.ts", "t/src/config.ts"
    assert {(src, t, conf, line) for src, t, _, conf, line in found} == {
        # one edge per function and name, at its first read: the parameter's default
        (f"{c}#fetchAll", f"{f}#byName", 1.0, 4),
        (f"{c}#fetchAll", f"{f}#MAX_RETRIES", 1.0, 5),
        (f"{c}#limit", f"{f}#MAX_RETRIES", 0.9, 16),  # through the namespace
    }


def test_a_module_object_references_the_function_that_built_it(tmp_path: Path) -> None:
    """pydantic's `NameEmail._validate` calls `pretty_email_regex.fullmatch(value)`, a
    module object `_build_pretty_email_regex()` made: nothing linked the method to the
    builder the fix changed. A read or a call through such an object in a function
    references the builder (via `value`); a parameter of that name, a class's object and
    the module's own code do not."""
    net = (
        "import re\n\n\n"
        "def _build():\n"
        "    return re.compile('x')\n\n\n"
        "class Box:\n"
        "    pass\n\n\n"
        "pretty = _build()\n"
        "box = Box()\n"
        "pattern = pretty.pattern\n\n\n"
        "class N:\n"
        "    def validate(self, s):\n"
        "        return pretty.fullmatch(s) and box\n\n"
        "    def raw(self):\n"
        "        return pretty\n\n\n"
        "def other(pretty):\n"
        "    return pretty.fullmatch('y')\n"
    )
    found = repo_edges(tmp_path, "b", {"net.py": net}, ("references",))
    n = "b/net.py"
    assert {(src, t, c, line) for src, t, _, c, line in found} == {
        (f"{n}#N.validate", f"{n}#_build", 0.8, 19),
        (f"{n}#N.raw", f"{n}#_build", 0.8, 22),
    }
