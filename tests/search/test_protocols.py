"""Which special methods a query's code runs (`search/protocols.py`)."""

from __future__ import annotations

import pytest

from codecompass.search.protocols import special_methods
from codecompass.search.query import parse_query


@pytest.mark.parametrize(
    ("code", "methods"),
    [
        (">>> A@B\n>>> 2@B", ["__matmul__", "__rmatmul__"]),
        ("milli*W == 1", ["__eq__", "__mul__", "__rmul__"]),
        ("a != b", ["__ne__", "__eq__"]),
        ("x <= y\nz > w", ["__le__", "__lt__", "__ge__", "__gt__"]),
        ("a + b - c", ["__add__", "__radd__", "__sub__", "__rsub__"]),
        ("x ** 2\nmilli/W", ["__pow__", "__rpow__", "__truediv__", "__rtruediv__", "__div__"]),
        ("~mask\nX | Y", ["__or__", "__ror__", "__invert__"]),
        ("x = y[0]\nz[1] = 2\ndel q[3]", ["__setitem__", "__delitem__", "__getitem__"]),
        ("with Lock() as held:\n    pass", ["__enter__", "__exit__"]),
        # Not operators: a decorator, star-arguments, a path, a prompt's pseudo-file, an
        # arrow, a shell option and a hyphenated name.
        ("@property\ndef f(self) -> int:\n    return g(*args, **kw)", []),
        ('see src/foo/bar.py\nFile "<stdin>", line 1, in <module>', []),
        ("pip install -e .\nfrom x import *\nfoo-bar", []),
        # Type hints subscript and union no object (typer's audit).
        ("def f(name: Optional[str] = None, n: list[int] = []): ...\nx: str | None", []),
    ],
)
def test_operators_in_code_run_special_methods(code: str, methods: list[str]) -> None:
    assert special_methods(code, code) == methods


def test_builtins_and_words_anywhere_run_special_methods() -> None:
    text = (
        "repr() of an element; the dataset compares unequal after copy.deepcopy(ds); "
        'PicklingError; f"{VR.US}" gives VR.US; len(t.groups) is 0'
    )
    assert special_methods("", text) == [
        "__repr__",
        "__deepcopy__",
        "__len__",
        "__format__",
        "__str__",
        "__reduce__",
        "__reduce_ex__",
        "__getstate__",
        "__setstate__",
        "__eq__",
    ]
    # A method of the same name is no built-in: `ds.copy()`, `"{}".format(x)`.
    assert special_methods("", 'ds.copy() and "{}".format(x)') == []
    # Operators in prose are no code: "input/output", "a * footnote".
    assert special_methods("", "input/output is a + b") == []


def test_a_query_reads_the_special_methods_of_its_code() -> None:
    q = parse_query(
        "Dataset compares unequal to its copy\n\n```python\nds = Dataset()\n"
        "print(ds == ds2)\n```\nand `make_table(3)` works"
    )
    assert q.special == ["__eq__"]
    assert q.as_dict()["special"] == ["__eq__"]
    # Prose operators are not read: "a/b testing" is no division.
    assert parse_query("a/b testing of Dataset * 2 items").special == []


def test_a_string_literals_text_runs_no_operator() -> None:
    """httpx's audit: `httpx.URL("postgres://admin:p@ss@db:5432/app")` ran `__matmul__`
    and `__truediv__`."""
    code = 'url = httpx.URL("postgres://admin:p@ss@db.example.com:5432/app")\nprint(url.host)'
    assert special_methods(code, code) == []
    assert special_methods("x = 'a' + name", "") == ["__add__", "__radd__"]


def test_pytests_explanation_and_async_with_run_no_special_method() -> None:
    """Textual's audit: pytest's `E  +  where …` lines read as `+`, and `async with`
    as `__enter__`/`__exit__`, which it does not run. (Marking `__aenter__` and
    `__aexit__` instead lost httpx's audit a task: every async example opens its
    client so.)"""
    failure = "E       assert 2 == 3\nE        +  where 2 = count(x)\nE        -  3"
    assert special_methods(failure, "") == ["__eq__"]
    assert special_methods("async with App().run_test() as pilot:\n    pass", "") == []
    assert special_methods("with open(p) as f:\n    pass", "") == ["__enter__", "__exit__"]


def test_shell_commands_urls_paths_and_other_languages_run_no_operator() -> None:
    """werkzeug's audit: `/users//42` ran `__floordiv__`, a curl command's `@body.gz`
    and URL `__matmul__` and `__truediv__`; echo's and fastify's: a Go trace's `+0x9c`
    and a ```js fence's `/` ran Python's operators."""
    assert special_methods("curl -X POST http://h/echo --data-binary @body.gz", "") == []
    assert special_methods("GET /users//42 then a/b", "") == [
        "__truediv__",
        "__rtruediv__",
        "__div__",
    ]
    assert parse_query("Requesting `/users//42` gives 404").special == []
    assert parse_query("```js\nconst ratio = a / b\n```").special == []
    assert parse_query("```Python\nratio = a / b\n```").special == [
        "__truediv__",
        "__rtruediv__",
        "__div__",
    ]
    go = "panic: x\n\ngoroutine 1 [running]:\nmain.main()\n\t/app/main.go:3 +0x9c\n`len(a + b)`"
    assert parse_query(go).special == []


def test_a_tracebacks_echoed_source_lines_run_no_special_method() -> None:
    """typer's audit: the library's line under a frame (`return f"{value}" if value ==
    2`) was read as the user's `==` and f-string."""
    trace = (
        "It fails:\n```\nTraceback (most recent call last):\n"
        '  File "/venv/lib/site-packages/typer/main.py", line 639, in convertor\n'
        '    return f"{value}" if value == 2 else None\n'
        "TypeError: bad value\n```\n"
    )
    assert parse_query(trace).special == []
    assert parse_query(trace + "and `a == b` is fine").special == ["__eq__"]
