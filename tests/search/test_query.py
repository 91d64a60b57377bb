"""Query understanding: identifiers, dotted names, paths, frames, quotes and errors."""

from __future__ import annotations

from codecompass.search.query import Frame, module_path_candidates, parse_query

TRACEBACK = """Traceback (most recent call last):
  File "/home/me/venv/lib/python3.11/site-packages/pkg/core/mod.py", line 12, in run_job
    return helper(x)
  File "pkg/util.py", line 3, in helper
ValueError: bad value for "limit"
"""


def test_python_traceback_gives_frames_paths_and_the_error() -> None:
    q = parse_query(TRACEBACK)
    assert q.frames == [
        Frame("/home/me/venv/lib/python3.11/site-packages/pkg/core/mod.py", 12, "run_job"),
        Frame("pkg/util.py", 3, "helper"),
    ]
    assert "pkg/util.py" in q.paths
    assert q.errors == ['ValueError: bad value for "limit"']
    assert {"run_job", "helper", "ValueError"} <= set(q.names)


def test_js_ipython_and_pytest_frames() -> None:
    js = parse_query("TypeError: x is undefined\n    at renderRow (src/table/row.js:41:7)")
    assert js.frames == [Frame("src/table/row.js", 41, "renderRow")]
    ipy = parse_query("~/env/site-packages/pkg/point.py in __add__(self, other)\n")
    assert ipy.frames == [Frame("~/env/site-packages/pkg/point.py", 0, "__add__")]
    pytest_frame = parse_query("pkg/core/expr.py:124: in __eq__\n")
    assert pytest_frame.frames == [Frame("pkg/core/expr.py", 124, "__eq__")]


def test_identifiers_dotted_names_and_quotes() -> None:
    q = parse_query(
        'Calling `Request.register_hook` then verify_token() fails with "token expired"; '
        "see parseHTTPResponse in the docs, e.g. the README."
    )
    assert "Request.register_hook" in q.dotted
    assert {"register_hook", "verify_token", "parseHTTPResponse", "Request"} <= set(q.identifiers)
    assert "token expired" in q.quoted
    assert "e.g" not in q.dotted
    assert "the" not in q.identifiers


def test_plain_prose_names_nothing() -> None:
    q = parse_query("where is the configuration file parsed")
    assert (q.identifiers, q.dotted, q.paths, q.frames) == ([], [], [], [])
    assert "configuration" in q.terms


def test_module_paths_of_a_dotted_name() -> None:
    assert module_path_candidates("a.b.C") == [
        "a/b/C.py",
        "a/b/C/__init__.py",
        "a/b.py",
        "a/b/__init__.py",
    ]
