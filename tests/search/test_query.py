"""Query understanding: identifiers, dotted names, paths, frames, quotes and errors."""

from __future__ import annotations

import pytest

from codecompass.search.query import (
    MAX_WINDOWS,
    Frame,
    asks_for_callers,
    message_phrases,
    module_path_candidates,
    parse_query,
    query_windows,
    without_environment_noise,
)

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
    assert q.python_frames == 2
    assert parse_query(TRACEBACK + "    at render (src/row.js:41:7)\n").python_frames == 2
    assert q.errors == ['ValueError: bad value for "limit"']
    assert {"run_job", "helper", "ValueError"} <= set(q.names)


def test_an_error_of_an_exceptions_module_or_quoted_as_code_is_an_error() -> None:
    """Requests' tracebacks end in `requests.exceptions.InvalidURL: …`, a class whose
    name ends in no `Error`; users quote such a line as code in a sentence. Neither was
    an error, so the message that locates the `raise` went unread."""
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/venv/site-packages/requests/models.py", line 440, in prepare_url\n'
        "requests.exceptions.InvalidURL: Invalid URL 'http://': No host supplied\n"
    )
    assert parse_query(trace).errors == [
        "requests.exceptions.InvalidURL: Invalid URL 'http://': No host supplied"
    ]
    quoted = parse_query(
        "it raises `sqlalchemy.exc.NoResultFound: No row was found` and "
        "`ValueError: bad limit` but `see: this` and `MyError` are no errors"
    )
    assert quoted.errors == [
        "sqlalchemy.exc.NoResultFound: No row was found",
        "ValueError: bad limit",
    ]
    # A class of any other module needs an error's name.
    assert parse_query("pkg.models.Invalid: no host").errors == []


def test_a_tracebacks_last_line_and_a_loggers_warning_are_errors() -> None:
    """httpx's tracebacks end in `httpx.InvalidURL: …` and Django logs
    `WARNING django.security.DisallowedModelAdminLookup: Filtering by … not allowed`:
    neither class's name ends in `Error`, so the messages that place the code went
    unread. After a frame's source lines, and after a logger's level, they are errors."""
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/venv/site-packages/httpx/_urls.py", line 115, in __init__\n'
        "    self._uri_reference = urlparse(url, **kwargs)\n"
        "                          ^^^^^^^^^^^^^^^^^^^^^^^\n"
        "httpx.InvalidURL: Invalid non-printable ASCII character in URL\n"
    )
    assert parse_query(trace).errors == [
        "httpx.InvalidURL: Invalid non-printable ASCII character in URL"
    ]
    logged = (
        "The log says:\n\n"
        "WARNING django.security.DisallowedModelAdminLookup: Filtering by x__exact not allowed\n"
        "2024-05-01 10:00:01,123 ERROR app.db: connection lost to replica 3\n"
        "ERROR:root:worker stopped\n"
        "INFO app.db: connected\n"
    )
    assert parse_query(logged).errors == [
        "django.security.DisallowedModelAdminLookup: Filtering by x__exact not allowed",
        "app.db: connection lost to replica 3",
        "root: worker stopped",
    ]
    # Not after a frame's lines, nor after a level: prose with a colon is no error.
    assert parse_query("Note: the URL is\nhttpx.URL: a class").errors == []


def test_an_error_in_the_comment_ending_a_line_of_code_is_an_error() -> None:
    """Snippets show what a line raised in its comment (`td["x"]  # KeyError: 'x'`,
    `schema.load(d)  # ValidationError: {…}`): the message went unread."""
    snippet = (
        "```python\n"
        "td['x']  # KeyError: 'x'\n"
        "schema.load(d)  # marshmallow.exceptions.ValidationError: {'ts': ['Not valid.']}\n"
        "render(x)  // TypeError: x is undefined\n"
        "# ValueError: unit mismatch\n"
        "## Error description\n"
        "see https://example.org/ValueError: no\n"
        "```"
    )
    assert parse_query(snippet).errors == [
        "KeyError: 'x'",
        "marshmallow.exceptions.ValidationError: {'ts': ['Not valid.']}",
        "TypeError: x is undefined",
        "ValueError: unit mismatch",
    ]


def test_frame_paths_keep_the_traceback_order() -> None:
    # Eight frames: a set's order (which varies with the process's hash seed) matches
    # the traceback's in one process of 40,320.
    files = [f"pkg/step{i}.py" for i in range(8)]
    text = "".join(f'  File "{path}", line {i + 1}, in step{i}\n' for i, path in enumerate(files))
    assert parse_query("Traceback (most recent call last):\n" + text).paths == files


def test_js_ipython_and_pytest_frames() -> None:
    js = parse_query("TypeError: x is undefined\n    at renderRow (src/table/row.js:41:7)")
    assert js.frames == [Frame("src/table/row.js", 41, "renderRow")]
    # A private method keeps its `#` (the symbol is `Ky.#retry`, not `Ky.retry`); a path
    # may be a URL: Node's ES modules, a browser's dev server (Vite), webpack.
    urls = parse_query(
        "    at async Ky.#retry (file:///app/node_modules/ky/source/core/Ky.js:297:20)\n"
        "    at App (http://localhost:5173/src/App.tsx?t=1700000000000:12:5)\n"
        "    at render (webpack-internal:///./src/view.js:8:3)\n"
        # Next.js names its layer (an outside audit on axios: no frame was read).
        "    at setProxy (webpack-internal:///(rsc)/./node_modules/axios/lib/http.js:86:102)\n"
        # V8's `[as get]` is the property a function was called as: `wrap` is its name,
        # and `Function.` the receiver's type (the audit read the function `get]`).
        "    at Function.wrap [as get] (/repo/node_modules/axios/lib/helpers/bind.js:5:15)\n"
        "    at Object.<anonymous> (/repo/app.js:3:1)\n"
    )
    assert urls.frames == [
        Frame("/app/node_modules/ky/source/core/Ky.js", 297, "Ky.#retry"),
        Frame("/src/App.tsx", 12, "App"),
        Frame("/src/view.js", 8, "render"),
        Frame("/node_modules/axios/lib/http.js", 86, "setProxy"),
        Frame("/repo/node_modules/axios/lib/helpers/bind.js", 5, "wrap"),
        Frame("/repo/app.js", 3, "<anonymous>"),
    ]
    # Firefox and Safari write `function@url:line:column`.
    gecko = parse_query(
        "TypeError: e.user is undefined\n"
        "getUser@http://localhost:5173/src/users.js?t=17:2:20\n"
        "Router.prototype.handle@http://localhost:5173/src/lib/router.js:3:9\n"
        "async*loadAll/<@http://localhost:5173/src/api.js:10:3\n"
        "@http://localhost:5173/src/main.js:5:1\n"
        "write to someone@example.com:25:1 about it\n"
    )
    assert gecko.frames == [
        Frame("/src/users.js", 2, "getUser"),
        Frame("/src/lib/router.js", 3, "Router.handle"),
        Frame("/src/api.js", 10, "loadAll"),
        Frame("/src/main.js", 5, None),
    ]
    ipy = parse_query("~/env/site-packages/pkg/point.py in __add__(self, other)\n")
    assert ipy.frames == [Frame("~/env/site-packages/pkg/point.py", 0, "__add__")]
    pytest_frame = parse_query("pkg/core/expr.py:124: in __eq__\n")
    assert pytest_frame.frames == [Frame("pkg/core/expr.py", 124, "__eq__")]
    # Cython names a frame's function with its module.
    cython = parse_query(
        '  File "sklearn/linear_model/_sgd_fast.pyx", line 629, in '
        "sklearn.linear_model._sgd_fast._plain_sgd\n"
    )
    assert cython.frames == [Frame("sklearn/linear_model/_sgd_fast.pyx", 629, "_plain_sgd")]


def test_go_traces_as_a_panic_recovery_and_the_race_detector_print_them() -> None:
    """An outside audit on gin: a nested closure's frame read as a function named `1`; the
    recovery handler deferred above `panic(` was taken for the failure; the race
    detector's indented frames and gin's recovery log gave no frame at all."""
    recovered = parse_query(
        "goroutine 7 [running]:\n"
        "github.com/gin-gonic/gin.CustomRecoveryWithWriter.func1.1()\n"
        "\t/go/pkg/mod/github.com/gin-gonic/gin@v1.12.0/recovery.go:86 +0x4d2\n"
        "panic({0x8c1e40?, 0xd2a7b0?})\n\t/usr/local/go/src/runtime/panic.go:787 +0x132\n"
        "github.com/gin-gonic/gin.(*Context).initQueryCache(0xc0001b6000)\n"
        "\t/go/pkg/mod/github.com/gin-gonic/gin@v1.12.0/context.go:581 +0x3e\n"
        "testing.(*T).Run.gowrap1()\n\t/usr/local/go/src/testing/testing.go:1851 +0x44\n"
    )
    gin = "/go/pkg/mod/github.com/gin-gonic/gin@v1.12.0"
    # The panic's own frames first: the deferred handler above `panic(` comes last.
    assert recovered.frames == [
        Frame(f"{gin}/context.go", 581, "Context.initQueryCache"),
        Frame("/usr/local/go/src/testing/testing.go", 1851, "T.Run"),
        Frame(f"{gin}/recovery.go", 86, "CustomRecoveryWithWriter"),
    ]
    race = parse_query(
        "WARNING: DATA RACE\nWrite at 0x00000127a4b8 by goroutine 9:\n"
        "  github.com/gin-gonic/gin.SetMode()\n"
        f"      {gin}/mode.go:73 +0x1c4\n"
        "  example.com/api/routes_test.newTestRouter()\n"
        "      /builds/api/routes/routes_test.go:14 +0x2e\n"
    )
    assert race.frames == [
        Frame(f"{gin}/mode.go", 73, "SetMode"),
        Frame("/builds/api/routes/routes_test.go", 14, "newTestRouter"),
    ]
    logged = parse_query(
        "[Recovery] 2026/05/28 - 10:14:03 panic recovered:\n"
        "/usr/local/go/src/runtime/iface.go:275 (0x40d8e5)\n"
        '\tpanicdottypeE: panic(&TypeAssertionError{iface, have, want, ""})\n'
        f"{gin}/response_writer.go:121 (0x9c1f8b)\n"
        "\t(*responseWriter).Hijack: return w.ResponseWriter.(http.Hijacker).Hijack()\n"
        f"{gin}/recovery.go:90 (0x9c4c31)\n\tCustomRecoveryWithWriter.func1: c.Next()\n"
    )
    assert logged.frames == [
        Frame("/usr/local/go/src/runtime/iface.go", 275, "panicdottypeE"),
        Frame(f"{gin}/response_writer.go", 121, "responseWriter.Hijack"),
        Frame(f"{gin}/recovery.go", 90, "CustomRecoveryWithWriter"),
    ]


def test_go_panics_name_their_message_and_the_standard_library_names_nothing() -> None:
    """echo's audit: `panic: msg` was no error line (an `Error: msg` scored +1.1 on the
    code holding it); GOROOT's frames named `HandlerFunc` and `ServeHTTP`, echo's own
    names; a value receiver's type was lost (`RequestLoggerConfig.ToMiddleware` read as
    `ToMiddleware`); the goroutine's creator was no frame; `github.com`, `v4`, `func1`
    were names."""
    echo = "/go/pkg/mod/github.com/labstack/echo/v4@v4.12.0/middleware"
    trace = parse_query(
        "2024/08/16 12:00:01 http: panic serving 127.0.0.1:50240: flushing not supported\n"
        "panic: response writer flushing is not supported [recovered]\n"
        "goroutine 9 [running]:\n"
        "net/http.HandlerFunc.ServeHTTP(0xc0001)\n"
        "\t/usr/local/go/src/net/http/server.go:2220 +0x29\n"
        "github.com/labstack/echo/v4/middleware.RequestLoggerConfig.ToMiddleware.func1.1()\n"
        f"\t{echo}/request_logger.go:281 +0x9c\n"
        "created by github.com/labstack/echo/v4/middleware.TimeoutConfig.ToMiddleware.func1"
        " in goroutine 900\n"
        f"\t{echo}/timeout.go:160 +0x2f4\n"
    )
    assert trace.errors == [
        "panic: flushing not supported",
        "panic: response writer flushing is not supported",
    ]
    assert trace.frames == [
        Frame("/usr/local/go/src/net/http/server.go", 2220, "HandlerFunc.ServeHTTP"),
        Frame(f"{echo}/request_logger.go", 281, "RequestLoggerConfig.ToMiddleware"),
        Frame(f"{echo}/timeout.go", 160, "TimeoutConfig.ToMiddleware"),
    ]
    assert trace.identifiers == ["RequestLoggerConfig", "ToMiddleware", "TimeoutConfig"]
    assert trace.names == ["RequestLoggerConfig", "ToMiddleware", "TimeoutConfig"]
    assert parse_query("fatal error: concurrent map writes").errors == [
        "fatal error: concurrent map writes"
    ]
    assert parse_query("I panic: the build is red").errors == []


def test_a_fences_lines_of_output_name_nothing() -> None:
    """echo's audit: a log line in a fence made `Accept` a name (echo's
    `tcpKeepAliveListener.Accept` came first), an HTTP response `Too`, `Many`,
    `Requests`; werkzeug's `404 Not Found` made `Found`. A fence's line of several words
    with no mark of code is output; a line of code keeps its capitalized names."""
    query = parse_query(
        "Eventually the server logs:\n```\n"
        "echo: http: Accept error: accept tcp [::]:8080: too many open files; retrying in 1s\n"
        "HTTP/1.1 429 Too Many Requests\nContent-Type: application/json\n"
        "--- FAIL: TestChatProxy (0.31s)\n```\n"
        "```go\ne.Use(middleware.RateLimiter(store))\nvar limit Limit\nRateLimiterConfig\n```"
    )
    assert query.identifiers == [
        "TestChatProxy",
        "Use",  # and not `e`, a one-letter receiver
        "middleware",
        "RateLimiter",
        "RateLimiterConfig",
        "Limit",
    ]
    # A name at a line's end is not called by a parenthesis on the next line.
    assert parse_query("+0x9e4\n   (*Echo).ServeHTTP()").identifiers == ["ServeHTTP"]


def test_javascripts_built_in_objects_name_nothing() -> None:
    """fastify's audit: `Object.keys(opts)` named fastify's `lib/symbols.js::keys`,
    which came first; `console.log` would name a `log`. A library's `Promise.all` may be
    the repository's own (bluebird), so it stays."""
    query = parse_query(
        "```js\nconst ks = Object.keys(opts)\nconsole.log(JSON.stringify(x))\n"
        "await Promise.all(list)\nreq.hostname\n```"
    )
    assert query.identifiers == ["Promise", "all"]
    assert query.dotted == ["Promise.all", "req.hostname"]


def test_names_the_querys_code_defines_and_nodes_frames_are_its_own() -> None:
    """typer's audit: a repro's `def main():` named typer's `main.py` by its stem; immer's:
    `at ModuleJob.run (node:internal/modules/esm/module_job:…)` put package.json first by
    `modules` and `esm`. The code's definitions are `defined`; Node's frames leave the
    text before anything reads it."""
    query = parse_query(
        "```python\nimport typer\n\nasync def main(name: str):\n    print(name)\n"
        "class Cfg:\n    pass\n```\nand `function handler(req) {}`, `func run() {}`"
    )
    assert query.defined == {"main", "Cfg", "handler", "run"}
    text = (
        "Counter is read only\n"
        "    at ModuleJob.run (node:internal/modules/esm/module_job:234:25)\n"
        "    at produce (/app/node_modules/immer/src/core/immerClass.ts:98:12)\n"
    )
    assert without_environment_noise(text) == (
        "Counter is read only\n"
        "    at produce (/app/node_modules/immer/src/core/immerClass.ts:98:12)\n"
    )


OTHER_TRACES = {
    "jvm": (
        "java.lang.NullPointerException\n"
        "\tat com.acme.shop.OrderService.place(OrderService.java:42)\n"
        "\tat com.acme.shop.Library$Loan.isOverdue(Library.java:30)\n"
        "\tat com.acme.shop.Main$Inner.lambda$main$0(Main.java:10)",
        [
            Frame("com/acme/shop/OrderService.java", 42, "OrderService.place"),
            Frame("com/acme/shop/Library.java", 30, "Library.Loan.isOverdue"),
            Frame("com/acme/shop/Main.java", 10, None),  # a lambda has no name to look up
        ],
    ),
    "dotnet": (
        "System.NullReferenceException: Object reference not set\n"
        "   at Acme.Shop.OrderService.Place(Order order) in C:\\src\\Shop\\OrderService.cs:line 42",
        [Frame("C:/src/Shop/OrderService.cs", 42, "OrderService.Place")],
    ),
    # As a Release build prints them, with no file (serilog's audit): the type's file,
    # a nested type after `+`; neither the platform's frames nor a JVM frame.
    "dotnet release": (
        "Unhandled exception. System.ArgumentException: bad (Parameter 'x')\n"
        "   at Serilog.Capturing.PropertyValueConverter.TryConvert(Object value, Int32 depth)\n"
        "   at System.Collections.Generic.List`1.ForEach(Action`1 action)\n"
        "   at Serilog.Core.Sinks.SafeAggregateSink+Batch.Emit(LogEvent logEvent)\n"
        "   at Serilog.Log.CloseAndFlush()\n",
        [
            Frame("PropertyValueConverter.cs", 0, "PropertyValueConverter.TryConvert"),
            Frame("SafeAggregateSink.cs", 0, "SafeAggregateSink.Batch.Emit"),
            Frame("Log.cs", 0, "Log.CloseAndFlush"),
        ],
    ),
    "go": (
        "goroutine 1 [running]:\nmain.(*Server).handle(0x0)\n\t/home/u/app/server.go:42 +0x1d\n"
        "github.com/acme/app/store.Open.func1(...)\n\t/home/u/app/store/open.go:7 +0x2",
        [
            Frame("/home/u/app/server.go", 42, "Server.handle"),
            Frame("/home/u/app/store/open.go", 7, "Open"),  # its closure: the function
        ],
    ),
    "rust": (
        "thread 'main' panicked at src/shapes.rs:12:9:\nindex out of bounds\nstack backtrace:\n"
        "   0: rust_begin_unwind\n"
        "   3: shapes::Circle::area\n             at ./src/shapes.rs:12:9\n"
        "   4: shapes::util::clamp::{{closure}}\n             at ./src/util.rs:3:5\n"
        "   5: shapes::main::h0123456789abcdef\n             at ./src/main.rs:10:5",
        [
            # Each `at path:line` is a frame of its own, read as a JavaScript one.
            Frame("src/shapes.rs", 12, None),
            Frame("src/shapes.rs", 12, None),
            Frame("src/util.rs", 3, None),
            Frame("src/main.rs", 10, None),
            Frame("src/shapes.rs", 12, "Circle.area"),
            Frame("src/util.rs", 3, "clamp"),  # a module's function, its closure
            Frame("src/main.rs", 10, "main"),
        ],
    ),
    "ruby": (
        "app/models/user.rb:12:in `full_name': undefined method `upcase' for nil\n"
        "\tfrom app/controllers/users_controller.rb:5:in `block in show'\n"
        "\tfrom app/models/greeter.rb:3:in 'User#greet'",
        [
            Frame("app/models/user.rb", 12, "full_name"),
            Frame("app/controllers/users_controller.rb", 5, "show"),
            Frame("app/models/greeter.rb", 3, "User.greet"),
        ],
    ),
    "php": (
        "PHP Fatal error:  Uncaught RuntimeException: out of stock in /var/www/src/Order.php:57\n"
        "Stack trace:\n#0 /var/www/src/Order.php(42): App\\Order->reserve()\n"
        "#1 /var/www/src/Http/Kernel.php(18): App\\Order->place()\n"
        "#2 /var/www/src/Http/Kernel.php(9): App\\Http\\{closure}(Object(Request))\n"
        "#3 /var/www/index.php(5): App\\Http\\Kernel::handle(Object(Request))\n#4 {main}",
        [
            # A frame's line is in the function the next frame calls (guzzle's audit:
            # read by its own callee, the constructor had the line of its caller); the
            # first is where the exception was thrown, in what `#0` calls. A closure's
            # call keeps its line.
            Frame("/var/www/src/Order.php", 57, "Order.reserve"),
            Frame("/var/www/src/Order.php", 42, "Order.place"),
            Frame("/var/www/src/Http/Kernel.php", 18, None),
            Frame("/var/www/src/Http/Kernel.php", 9, "Kernel.handle"),
            Frame("/var/www/index.php", 5, None),
        ],
    ),
}


def test_a_jvm_trace_starts_at_its_last_cause_and_names_no_package() -> None:
    """gson's audit: the root cause's frames (after `Caused by:`) are where the failure
    began; `<init>` is the constructor and `<clinit>` the class; a `$` of the file's own
    class is its name's; the package's words (`com`, `google`, `internal`) and the Java
    platform's frames named nothing."""
    trace = parse_query(
        "com.google.gson.JsonSyntaxException: java.lang.NumberFormatException: bad\n"
        "\tat com.google.gson.internal.bind.TypeAdapters$11.read(TypeAdapters.java:363)\n"
        "\tat com.google.gson.reflect.TypeToken.<init>(TypeToken.java:83)\n"
        "\tat com.google.gson.internal.$Gson$Types.getRawType($Gson$Types.java:141)\n"
        'Caused by: java.lang.NumberFormatException: For input string: "12 pcs"\n'
        "\tat java.base/java.lang.Long.parseLong(Long.java:711)\n"
        "\tat jdk.internal.reflect.DirectMethodHandleAccessor.invoke(Unknown Source)\n"
        "\tat com.google.gson.internal.bind.JsonTreeReader.nextLong(JsonTreeReader.java:261)\n"
        "\tat com.google.gson.Registry$Loader.<clinit>(Registry.java:12)\n"
        "\t... 8 more"
    )
    assert trace.frames == [
        Frame("com/google/gson/internal/bind/JsonTreeReader.java", 261, "JsonTreeReader.nextLong"),
        Frame("com/google/gson/Registry.java", 12, "Registry.Loader"),
        Frame("com/google/gson/internal/bind/TypeAdapters.java", 363, "TypeAdapters.read"),
        Frame("com/google/gson/reflect/TypeToken.java", 83, "TypeToken.TypeToken"),
        Frame("com/google/gson/internal/$Gson$Types.java", 141, "$Gson$Types.getRawType"),
    ]
    assert trace.identifiers == [
        "read",
        "TypeToken",
        "Types",
        "getRawType",
        "JsonTreeReader",
        "nextLong",
        "Loader",
        "TypeAdapters",
        "JsonSyntaxException",
        "NumberFormatException",
    ]


def test_rusts_compiler_output_is_an_error_and_runs_no_special_method() -> None:
    """serde_json's audit: `error[E0277]: …` was no error line, and the `|` gutter of
    rustc's output (in a fence with no language, beside a ```rust one) ran `__or__`."""
    issue = parse_query(
        "```rust\nlet v: &Value = Default::default();\n```\n"
        "```\nerror[E0277]: the trait bound `&Value: Default` is not satisfied\n"
        " --> src/main.rs:7:32\n  |\n7 |     let v: &Value = Default::default();\n"
        "  |                     ^^^^^^^^^^^^^^^^^^ the trait is not implemented\n```"
    )
    assert issue.errors == ["error[E0277]: the trait bound `&Value: Default` is not satisfied"]
    assert issue.special == []
    assert parse_query("```\nx = a | b\n```").special == ["__or__", "__ror__"]


@pytest.mark.parametrize("language", sorted(OTHER_TRACES))
def test_frames_of_jvm_dotnet_go_rust_ruby_and_php_traces(language: str) -> None:
    """Each names the file and the function, a method with its class."""
    trace, frames = OTHER_TRACES[language]
    assert parse_query(trace).frames == frames


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


def test_a_query_of_one_word_is_a_name() -> None:
    assert parse_query("trigsimp").identifiers == ["trigsimp"]
    assert parse_query("  Symbol\n").identifiers == ["Symbol"]
    # In a sentence a plain lower-case word stays prose; `etc` alone is no name either.
    assert parse_query("simplify trigsimp output").identifiers == []
    assert parse_query("etc").identifiers == []
    assert parse_query("42").identifiers == []


def test_literals_are_code_spans_and_quoted_strings_code_may_hold() -> None:
    q = parse_query(
        "Fix FP for `invalid-name` with ``--ignore-patterns`` (`Symbol`, `x`, `end_lineno`)"
        ' when "searchindex.js" is written; File "<stdin>", line 1, in `sympy/core/mod.py`'
        " or 'C:\\py\\mod.py' says \"no such file\""
    )
    # Plain words are names, `<stdin>` a traceback's, paths are paths, white space is prose.
    assert q.literals == ["invalid-name", "--ignore-patterns", "end_lineno", "searchindex.js"]
    # In prose: lower-case words joined by hyphens and options, not inside a path or URL.
    q = parse_query(
        "[used-before-assignment] FP under finally; run with --no-fold-skipped or -v."
        " Re-raise it, see github.com/pylint-dev/pylint or pylint-dev/pylint#42."
    )
    assert q.literals == ["used-before-assignment", "--no-fold-skipped"]


def test_rest_double_backticks_are_one_code_span() -> None:
    # Paired one backtick at a time, "``a`` on Windows ``b``" held the span " on Windows "
    # and named a class `Windows`; pylint's and Sphinx's messages are written so.
    q = parse_query("Fix ``ensure_ascii`` on Windows ``JSONEncoder`` subclasses")
    assert q.identifiers == ["ensure_ascii", "JSONEncoder"]


def test_a_private_member_is_named_without_its_hash() -> None:
    q = parse_query("Ky.#retry() loops; this.#send is slow")
    assert (q.dotted, q.names) == (["Ky.retry", "this.send"], ["Ky", "retry", "send"])
    assert q == parse_query("Ky.#retry() loops; this.#send is slow")
    plain = parse_query("Ky.retry() loops; this.send is slow")
    assert (q.identifiers, q.dotted) == (plain.identifiers, plain.dotted)


def test_plain_prose_names_nothing() -> None:
    q = parse_query("where is the configuration file parsed")
    assert (q.identifiers, q.dotted, q.paths, q.frames) == ([], [], [], [])
    assert "configuration" in q.terms


def test_a_plural_in_prose_is_no_call() -> None:
    """black's history: "followed by whitespace(s)" gave its function `whitespace` the
    `name` feature. In code, `parse(s)` is still a call."""
    prose = parse_query("docstrings with a backslash followed by whitespace(s), file(es)")
    assert prose.identifiers == []
    code = parse_query("Calling `strip(s)` then\n```\nparse(s)\n```\nand load(x)")
    assert code.identifiers == ["strip", "parse", "load"]


def test_a_generic_call_is_a_call() -> None:
    """hono's audit: `hc<AppType>("/api")` names hono's client `hc`, as `hc("/api")`
    does; type arguments (one level nested) sit between a name and its parenthesis."""
    code = parse_query('```ts\nconst client = hc<AppType>("/api")\n```')
    assert code.identifiers == ["hc", "AppType"]
    nested = parse_query("const m = new Map<string, Array<number>>()")
    assert nested.identifiers == ["Map"]
    assert parse_query("a List<int> (the type) here").identifiers == []


def test_a_remark_in_parentheses_is_no_call() -> None:
    """moto's history: "ECS: Fix container memory validation (#7280)" named a Terraform
    resource `validation` first. Prose puts a space before a remark in parentheses; a
    name that reads as code, and a Node.js stack frame, still count."""
    prose = parse_query(
        "Fix container memory validation (#7280). Traceback (most recent call last) "
        "shows a set (of ids) that supports (truecolor) output"
    )
    assert prose.identifiers == []
    # A version is no dotted name; a sentence's period is no part of one.
    assert parse_query("Fix to_snake from v2.7 -> v2.8 (#9812)").identifiers == ["to_snake"]
    assert parse_query("Fix builtin function types. (#10479)").identifiers == []
    telnet = parse_query("Remove imports from scrapy.extensions.telnet. (#6510)")
    assert telnet.identifiers == ["scrapy", "extensions", "telnet"]
    code = parse_query(
        "    at Layer.handleRequest (/srv/app/lib/router/layer.js:152:17)\n"
        "nc_part (a list) is empty, and `print (x)` fails; foo(x) too"
    )
    assert code.identifiers == ["Layer", "handleRequest", "nc_part", "print", "foo"]


def test_a_short_query_is_embedded_whole() -> None:
    text = "where is the token checked " * 12  # 60 words
    assert query_windows(text) == [text]


def test_a_long_query_is_embedded_as_title_and_overlapping_windows() -> None:
    words = [f"w{i}" for i in range(130)]
    text = "Title line here\n" + " ".join(words)
    windows = query_windows(text)
    assert windows[0] == "Title line here"
    body = [w.split() for w in windows[1:]]
    # 133 words: windows start at words 0, 50 and 100; the last holds the 33 left.
    assert [len(w) for w in body] == [60, 60, 33]
    assert body[0][:3] == ["Title", "line", "here"]
    assert body[1][0] == "w47" and body[2][-1] == "w129"


def test_a_very_long_query_is_read_in_at_most_max_windows() -> None:
    windows = query_windows("word " * 5000)  # one line: no title
    assert len(windows) == MAX_WINDOWS
    assert all(len(w.split()) == 60 for w in windows)


def test_module_paths_of_a_dotted_name() -> None:
    assert module_path_candidates("a.b.C") == [
        "a/b/C.py",
        "a/b/C/__init__.py",
        "a/b.py",
        "a/b/__init__.py",
    ]


def test_message_phrases_are_runs_of_an_error_messages_words() -> None:
    errors = [
        "ValueError: Velocity of point Q has not been defined",
        "KeyError: no such key",  # three words: whole
        "TypeError: bad input",  # two words: too few to place
    ]
    assert message_phrases([e.partition(": ")[2] for e in errors]) == [
        "Velocity of point Q",
        "of point Q has",
        "point Q has not",
        "Q has not been",
        "has not been defined",
        "no such key",
    ]
    assert parse_query(TRACEBACK).errors == ['ValueError: bad value for "limit"']
    assert message_phrases(parse_query(TRACEBACK).messages) == ['bad value for "limit"']
    quoted = parse_query('tmux says "can\'t find session" and "no such"')
    assert quoted.quoted_messages == ["can't find session"]  # "no such": two words
    assert message_phrases(quoted.messages) == ["can't find session"]


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("unit tests for creating an order", True),
        ("where is toggleFavorite tested", True),
        ("which tests cover smart playlist rules", True),
        ("tests for the catalog API", True),
        ("spec for the login page", True),
        ("integration-tests of the payment webhook", True),
        # using the code in a test, or a report of failing tests: the code is wanted
        ("invoke a command in a test and capture its output and exit code", False),
        ("Tests for sympify fail on Python 3.8", False),
        ("test_parse raises KeyError: 'x'", False),
        ("where is the token checked", False),
        # an issue's length: its tests are evidence, not the answer
        ("which tests " + "and the parser that reads every token " * 4, False),
    ],
)
def test_a_question_asking_for_tests_is_told(text: str, wanted: bool) -> None:
    assert parse_query(text).wants_tests is wanted


def test_a_traceback_never_asks_for_tests() -> None:
    trace = 'Traceback (most recent call last):\n  File "tests/test_x.py", line 3, in test_x\n'
    assert parse_query("which tests cover this?\n" + trace).wants_tests is False


def test_a_template_or_stylesheet_path_is_a_path() -> None:
    """maybe's `app/views/accounts/_form.html.erb` was read as the dotted name
    `_form.html.erb`: a Rails view's extension was no source extension."""
    parsed = parse_query("the form in app/views/accounts/_form.html.erb and app.css")
    assert parsed.paths == ["app/views/accounts/_form.html.erb", "app.css"]
    assert parsed.dotted == []


def test_a_call_that_looks_like_a_path_is_a_call() -> None:
    """Requests' `r.json()` was read as the path `r.json` and lost as a name, though a
    file is never called."""
    parsed = parse_query("data = r.json() fails, and resp.yaml(strict=True) too; see conf.json")
    assert parsed.paths == ["conf.json"]
    assert parsed.dotted == ["r.json", "resp.yaml"]


def test_a_field_of_one_capital_letter_is_no_file() -> None:
    """gin's `<-sub.C` (a Go channel field) was read as the C++ file `sub.C`."""
    parsed = parse_query("reading <-sub.C blocks, see main.c and src/Foo.C")
    assert parsed.paths == ["main.c", "src/Foo.C"]


def test_short_double_quoted_strings_keep_the_later_ones_paired() -> None:
    """jsoup's report `addProtocols("a", "href", "#") keeps <a href="#top">` was read
    as the strings `href` and `) keeps <a href=`: a string under three characters was
    skipped, and its closing quote opened the next. An apostrophe still opens none."""
    q = parse_query("""addProtocols("a", "href", "#") keeps <a href="#top"> and user's 'name'""")
    assert q.quoted == ["href", "#top", "name"]


def test_a_tracebacks_own_words_name_nothing() -> None:
    """pytest's audit: "Traceback" and "File" of any traceback were names at full weight,
    and put `_pytest/_code/code.py::Traceback` first for a crash in an unrelated file."""
    fenced = parse_query(
        "Crash on collect\n\n```\n" + TRACEBACK + "\nDuring handling of the above exception, "
        "another exception occurred:\n\n" + TRACEBACK + "```"
    )
    assert fenced.identifiers == ["helper", "run_job", "ValueError"]
    group = parse_query(
        "```\n  + Exception Group Traceback (most recent call last):\n"
        '  |   File "/home/kim/test_eg.py", line 5, in test_group\n'
        '  |     raise ExceptionGroup("batch failed", [RuntimeError("worker 1")]) from e\n```'
    )
    assert group.identifiers == ["ExceptionGroup", "RuntimeError", "test_group"]
    assert fenced.frames[:2] == parse_query(TRACEBACK).frames
    # The word stays a name where code names it.
    assert parse_query("`Traceback.cut()` drops the frames").identifiers == ["Traceback", "cut"]


def test_an_apostrophe_inside_a_word_quotes_nothing() -> None:
    """pytest's audit: "The option isn't applied. Fine, but there's no error" was the
    quoted phrase `t applied. Fine, but there`."""
    assert parse_query("The option isn't applied. Fine, but there's no error.").quoted == []
    q = parse_query("users' names aren't 'padded'; f'{name}' and r'\\d+x' are strings")
    assert q.quoted == ["padded", "{name}", "\\d+x"]


def test_the_standard_librarys_source_lines_name_nothing() -> None:
    """pytest's audit: doctest.py's `exec(compile(example.source, …))` made pytest's
    `Expression.compile` and `Code.source` names of the query. A library's or the
    user's own frame still names what its line calls."""
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.12/doctest.py", line 1368, in __run\n'
        "    exec(compile(example.source, filename, 'single',\n"
        '  File "C:\\Python311\\Lib\\runpy.py", line 88, in _run_code\n'
        "    exec(code, run_globals)\n"
        '  File "<frozen runpy>", line 198, in _run_module_as_main\n'
        '  File "<doctest mod.run[0]>", line 1, in <module>\n'
        "    run_job(limit=3)\n"
        '  File "/venv/lib/python3.12/site-packages/pkg/core.py", line 9, in run_job\n'
        "    return validate_limit(limit)\n"
        "ValueError: bad limit\n"
    )
    q = parse_query(trace)
    assert q.identifiers == ["run_job", "validate_limit", "ValueError"]
    assert [f.function for f in q.frames] == [
        "__run", "_run_code", "_run_module_as_main", "<module>", "run_job"
    ]  # fmt: skip


def test_ipython_8_frames_and_a_chains_cause() -> None:
    """xarray's audit: IPython 8 and Jupyter print `File path:line, in Class.meth(…)`,
    which gave no frame. pylint's: a crash report wraps the crash's traceback in a second
    one; the first traceback of a chain is the cause."""
    ipython = parse_query(
        "KeyError                                  Traceback (most recent call last)\n"
        "File /venv/lib/python3.12/site-packages/xarray/core/indexes.py:1272, in "
        "PandasMultiIndex.create_variables(self, variables)\n"
        "   1270 else:\n-> 1272     dtype = self.level_coords_dtype[name]\n\nKeyError: 0\n"
    )
    assert ipython.frames == [
        Frame(
            "/venv/lib/python3.12/site-packages/xarray/core/indexes.py",
            1272,
            "PandasMultiIndex.create_variables",
        )
    ]
    assert "Traceback" not in ipython.identifiers and "File" not in ipython.identifiers
    assert (ipython.python_frames, ipython.cause_frames) == (1, 1)
    chain = parse_query(
        TRACEBACK + "\nThe above exception was the direct cause of the following exception:\n\n"
        'Traceback (most recent call last):\n  File "pkg/lint.py", line 9, in lint_file\n'
        "Crash: boom\n"
    )
    assert [f.function for f in chain.frames] == ["run_job", "helper", "lint_file"]
    assert (chain.python_frames, chain.cause_frames) == (3, 2)
    # An exception raised while another was handled: the handled one (an expected
    # KeyError, a failed optional import) is no cause, and the last traceback holds the
    # failure (pydantic's, astropy's and SymPy's such chains all had the fix there).
    handled = parse_query(
        TRACEBACK + "\nDuring handling of the above exception, another exception occurred:\n\n"
        'Traceback (most recent call last):\n  File "pkg/lint.py", line 9, in lint_file\n'
        "Crash: boom\n"
    )
    assert (handled.python_frames, handled.cause_frames) == (3, 3)


def test_a_file_name_in_a_folder_is_no_dotted_name() -> None:
    """pylint's audit: `reports/pylint.txt` was the dotted name `pylint.txt` (a module
    `pylint/txt.py`), its folder lost; a URL's host was one too."""
    q = parse_query(
        "pylint writes reports/pylint.txt and C:\\out\\lint.log, see https://docs.python.org"
    )
    assert q.dotted == []
    assert parse_query("call pkg.util.helper() after os.path").dotted == [
        "pkg.util.helper",
        "os.path",
    ]


def test_a_standard_library_frame_names_nothing() -> None:
    """Sphinx's audit: `<frozen importlib._bootstrap_external> in exec_module` gave the
    repository's `MockLoader.exec_module` the name feature."""
    q = parse_query(
        'Traceback (most recent call last):\n  File "/app/sphinx/ext/autodoc.py", line 9, '
        'in import_module\n  File "<frozen importlib._bootstrap_external>", line 999, in '
        'exec_module\n  File "/usr/lib/python3.12/runpy.py", line 88, in _run_code\n'
        "ImportError: boom\n"
    )
    assert [f.function for f in q.frames] == ["import_module", "exec_module", "_run_code"]
    assert q.names == ["import_module", "ImportError"]


def test_console_banners_are_left_out_of_the_query() -> None:
    """An IPython session pasted whole starts with its banner, whose words ("an enhanced
    Interactive Python", "help system", "license") put SymPy's `interactive/session.py`
    first for an issue about `apart`. The banners of Python and IPython consoles go; the
    session's code and a sentence about Python stay."""
    pasted = (
        "Wrong result with apart\n"
        "Python 3.6.0 |Continuum Analytics, Inc.| (default, Dec 23 2016, 12:22:00) \r\n"
        'Type "copyright", "credits" or "license" for more information.\r\n'
        "IPython 5.1.0 -- An enhanced Interactive Python.\n"
        "?         -> Introduction and overview of IPython's features.\n"
        "%quickref -> Quick reference.\n"
        "help      -> Python's own help system.\n"
        "object?   -> Details about 'object', use 'object??' for extra details.\n"
        "In [1]: bug.apart(t)\n"
        "Out[1]: -a*t\n"
        "Python 3.6.9 (default, Jan 26 2021, 15:33:00)\n"
        "[GCC 8.4.0] on linux\n"
        'Type "help", "copyright", "credits" or "license" for more information.\n'
        ">>> x = 1\n"
        "Python 3.12 changed how help -> works for objects.\n"
    )
    kept = [line for line in without_environment_noise(pasted).splitlines() if line.strip()]
    assert kept == [
        "Wrong result with apart",
        "In [1]: bug.apart(t)",
        "Out[1]: -a*t",
        ">>> x = 1",
        "Python 3.12 changed how help -> works for objects.",
    ]


def test_a_version_report_is_left_out_of_the_query_and_a_configuration_stays() -> None:
    """`xr.show_versions()` and `sklearn.show_versions()` output lists the packages
    installed: appended to 25 xarray issues it took file@1 from 44 to 28 (`show_versions`
    and `pandas` pulled their files up). A run of `key: value` lines of which at least
    four, and half, give a version or None goes, with the line above it that says so;
    a configuration pasted as `key: value` lines stays."""
    report = (
        "Bug in rolling with center\n\n"
        "<summary>Output of <tt>xr.show_versions()</tt></summary>\n\n"
        "INSTALLED VERSIONS\n------------------\ncommit: None\n"
        "python: 3.8.5 (default, Sep  4 2020, 07:30:14)\n[GCC 7.3.0]\n"
        "OS: Linux\nmachine: x86_64\nLC_ALL: None\n\n"
        "xarray: 0.16.2\npandas: 1.1.5\nnumpy: 1.19.4\n"
        "</details>\n"
    )
    assert without_environment_noise(report).split() == [
        "Bug", "in", "rolling", "with", "center", "</details>",
    ]  # fmt: skip
    sklearn = (
        "Versions:\nSystem:\n    python: 3.7.3 (default, Mar 27 2019)  [GCC 7.3.0]\n"
        "executable: /usr/bin/python\n\nPython deps:\n       pip: 19.1.1\n"
        "   sklearn: 0.22.dev0\n     numpy: 1.16.4\n"
    )
    assert without_environment_noise(sklearn).strip() == ""
    config = (
        "My pylintrc, with version 2.17:\n[MAIN]\njobs: 4\nmax-line-length: 100\n"
        "load-plugins: pylint.extensions.docparams\npy-version: 3.8\nfail-under: 9.5\n"
        "ignore-patterns: ^\\.#\n"
    )
    assert without_environment_noise(config) == config


def test_an_issue_forms_environment_sections_and_a_package_list_are_left_out() -> None:
    """Matplotlib's issue form ends in sections about the versions, the operating
    system and the installation, each with a one-line answer; `pip freeze` and an
    "Environment" list name packages. They go; the backend (a Qt bug is about it) and a
    printed Series of numbers stay."""
    form = (
        "Colorbar extend wrong\n\n### Actual outcome\n\nThe triangles are missing.\n\n"
        "### Operating system\n\nWindows 10\n\n### Matplotlib Version\n\n3.5.1\n\n"
        "### Matplotlib Backend\n\nQtAgg\n\n### Python version\n\n3.9.7\n\n"
        "### Installation\n\npip\n"
    )
    assert without_environment_noise(form).split() == [
        "Colorbar", "extend", "wrong", "###", "Actual", "outcome", "The", "triangles", "are",
        "missing.", "###", "Matplotlib", "Backend", "QtAgg",
    ]  # fmt: skip
    packages = "pip freeze:\nnumpy==1.19.4\npandas==1.1.5\nscipy==1.5.2\nsix==1.15.0\n"
    assert without_environment_noise(packages).strip() == ""
    environment = (
        "**Environment:**\n - OS: Ubuntu 20.04\n - Python version: 3.8.5\n"
        " - requests version: 2.25.1\n - urllib3: 1.26.2\n - certifi: 2020.12.5\n"
    )
    assert without_environment_noise(environment).strip() == "**Environment:**"
    series = "Series output:\na    1.5\nb    2.5\nc    3.5\nd    4.5\ndtype: float64\n"
    assert without_environment_noise(series) == series
    # An answer in a code block stays, and so does the block's fence.
    fenced = "### Python version\n\n```\n3.9.7\n```\n\nmore text\n"
    assert without_environment_noise(fenced) == fenced


def test_a_tracebacks_terminal_colour_codes_are_left_out() -> None:
    """A Jupyter traceback copied from a terminal keeps its colour codes, often without
    their escape character: its frame (`rolling.py in __init__`) and error line were
    unread, and `0mda`, `0mrolling` read as names. The codes go, escaped or bare (bare
    ones only where a two-number code shows them for what they are)."""
    pasted = (
        "ValueError                                Traceback (most recent call last)\n"
        "[0;32m----> 1[0;31m [0mda[0m[0;34m.[0m[0mrolling[0m[0;34m([0m[0mx[0m"
        "[0;34m=[0m[0;36m3[0m[0;34m)[0m\n"
        "[0;32m~/lib/python3.8/site-packages/xarray/core/rolling.py[0m in "
        "[0;36m__init__[0;34m(self, obj, windows)[0m\n"
        "\x1b[0;31mValueError\x1b[0m: window must be > 0\n"
    )
    parsed = parse_query(without_environment_noise(pasted))
    assert [(f.path, f.function) for f in parsed.frames] == [
        ("~/lib/python3.8/site-packages/xarray/core/rolling.py", "__init__")
    ]
    assert parsed.errors == ["ValueError: window must be > 0"]
    assert {"da", "rolling"} <= set(parsed.identifiers)
    assert without_environment_noise("a[0m] = x[12m]") == "a[0m] = x[12m]"


def test_a_version_report_in_json_is_left_out_and_a_json_configuration_stays() -> None:
    """Requests' issue form asks for `python -m requests.help`, a JSON of versions:
    appended to 25 Requests issues it took file@1 from 64 to 28 (`help.py` first). It
    goes; a `tsconfig.json` pasted whole stays."""
    report = (
        "```json\n{\n"
        '  "chardet": {\n    "version": "3.0.4"\n  },\n'
        '  "idna": {\n    "version": "2.7"\n  },\n'
        '  "implementation": {\n    "name": "CPython",\n    "version": "3.7.0"\n  },\n'
        '  "pyOpenSSL": {\n    "openssl_version": "",\n    "version": null\n  },\n'
        '  "urllib3": {\n    "version": "1.23"\n  },\n'
        '  "using_pyopenssl": false\n}\n```\n'
    )
    assert without_environment_noise(report) == "```json\n```\n"
    config = (
        '{\n  "compilerOptions": {\n    "target": "es2017",\n    "module": "esnext",\n'
        '    "strict": true,\n    "jsx": "preserve"\n  }\n}\n'
    )
    assert without_environment_noise(config) == config


def test_a_capitalized_word_prose_calls_a_class_or_model_is_a_name() -> None:
    """The question "where is the Check model defined" had no name at all (a plain capitalized word
    is too often English), and migrations that create the model came first."""
    assert parse_query("where is the Check model defined").identifiers == ["Check"]
    assert parse_query("the Sponge class refuses private hosts").identifiers == ["Sponge"]
    assert parse_query("where does class Story get its score").identifiers == ["Story"]
    # Alone, or before a word that is no kind of code, it stays English.
    assert parse_query("Check the settings of the Story").identifiers == []
    assert parse_query("The Python class").identifiers == []


def test_a_lower_case_word_prose_calls_a_function_or_helper_is_a_name() -> None:
    """ "where is the cn class-name helper defined" had no name: `cn` has no code's shape,
    and its hundreds of calls came first."""
    assert parse_query("where is the cn class-name helper defined").identifiers == ["cn"]
    assert parse_query("what does the slugify function return").identifiers == ["slugify"]
    assert parse_query("the authenticate method of the web session").identifiers == ["authenticate"]
    # Words that only describe the function are no names.
    assert parse_query("the same function is called twice").identifiers == []
    assert parse_query("the following helper fails").identifiers == []
    assert parse_query("a new method and the wrapper function").identifiers == []


def test_a_private_name_is_a_name_but_emphasis_is_not() -> None:
    """`_dir` (a key's suffix a config loader tests for) was read as nothing."""
    assert parse_query("keys ending in `_dir` are read as paths").identifiers == ["_dir"]
    assert parse_query("this is _important_ and __init__ runs").identifiers == ["__init__"]


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("who calls verify_token?", True),
        ("what calls Vote.cast", True),
        ("what does ModNote.tattle! record and which code calls it", True),
        ("where is NotifyCommentJob enqueued", True),
        ("where is Keyed::key used to store items in a Table", True),
        ("callers of verify_token", True),
        ("where is verify_token defined", False),
        ("where is the Sponge class defined and what is it used for", False),
        ("which HTTP verb is used for the follow-up request", False),
        ("where is the token checked", False),
        ("verify_token is called twice " + "and the log fills " * 10, False),
    ],
)
def test_a_short_question_about_what_uses_a_name_asks_for_callers(
    question: str, asks: bool
) -> None:
    assert asks_for_callers(question) is asks
    assert parse_query(question).wants_callers is asks


def test_what_a_usage_question_asks_about_is_a_name_whatever_its_shape() -> None:
    """ "what calls sympify" had no name: a plain lower-case word is prose elsewhere."""
    assert parse_query("what calls sympify").identifiers == ["sympify"]
    assert parse_query("where is parse used").identifiers == ["parse"]
    assert parse_query("callers of the render").identifiers == ["render"]
    asked = parse_query("what calls Vote.cast")
    assert asked.dotted == ["Vote.cast"]
    assert parse_query("which code calls it").identifiers == []
    assert parse_query("sympify calls are slow").identifiers == []  # no usage question


def test_a_paths_folders_and_nodes_own_frames_name_nothing() -> None:
    """A dependency's frame (`…/site-packages/httpcore/_exceptions.py`) made
    `_exceptions` a name, whose stem then named httpx's own `_exceptions.py`; Node's
    frames (`at ModuleJob.run (node:internal/…)`) made `run` a name."""
    trace = (
        "Traceback (most recent call last):\n"
        '  File "/venv/lib/python3.12/site-packages/httpcore/_exceptions.py", line 10, in '
        "map_exceptions\n    yield\n"
        "TimeoutError: The read operation timed out\n"
    )
    q = parse_query(trace)
    assert "_exceptions" not in q.names and "httpcore" not in q.names
    assert q.names == ["map_exceptions", "TimeoutError"]
    node = (
        "ZodError: bad input\n"
        "    at Object.parse (file:///app/node_modules/zod/v4/core/parse.js:12:9)\n"
        "    at ModuleJob.run (node:internal/modules/esm/module_job:234:25)\n"
        "    at async ModuleLoader.import (node:internal/modules/esm/loader:473:24)\n"
        "    at Module._compile (internal/modules/cjs/loader.js:1105:14)\n"
    )
    assert parse_query(node).names == ["ZodError", "parse"]  # V8's `Object.` is no name
    # Alternatives joined by a slash in prose stay names (hono's audit).
    assert parse_query("the default RegExpRouter/SmartRouter").identifiers == [
        "RegExpRouter",
        "SmartRouter",
    ]


def test_a_name_alone_in_backticks_is_a_name_whatever_its_shape() -> None:
    """Textual's audit: `Input` (a capitalized English word) and `display` (lower case)
    in backticks named nothing, so the widget the issue was about lost to another."""
    q = parse_query("the cursor in `Input` widgets is hidden when `display` is set")
    assert q.identifiers == ["Input", "display"]
    # Constants, keywords and one or two letters name nothing.
    assert parse_query("`None` or `True` in a `for` over `xs` by `i`").identifiers == []


def test_richs_boxed_traceback_gives_python_frames() -> None:
    """Textual prints its crashes as Rich's boxed traceback: `│ /…/widget.py:4285 in
    render_lines`. Its frames were not read (its paths were, as paths only)."""
    boxed = (
        "╭──────── Traceback (most recent call last) ────────╮\n"
        "│ /venv/lib/python3.12/site-packages/textual/widget.py:4285 in render_lines\n"
        "│ ❱ 4285 │   │   strips = self._styles_cache.render_widget(self, crop)\n"
        "│ /venv/lib/python3.12/site-packages/textual/_styles_cache.py:116 in render_widget\n"
        "╰───────────────────────────────────────────────────╯\n"
        "IndexError: list index out of range\n"
    )
    q = parse_query(boxed)
    assert [(f.path.rsplit("/", 1)[1], f.line, f.function) for f in q.frames] == [
        ("widget.py", 4285, "render_lines"),
        ("_styles_cache.py", 116, "render_widget"),
    ]
    assert q.python_frames == 2
    assert q.errors == ["IndexError: list index out of range"]


def test_quotes_code_points_hyphenated_files_and_letters_outside_ascii() -> None:
    """httpx's audit: a backticked `''` opened a string that ended three code spans on
    (read as an error message); `U+1F4A9` added; `proxy-ca.pem` gave the dotted name
    `ca.pem`; `Zoë` the name `Zo`."""
    q = parse_query(
        "`list(r.iter_text())` ends with `''` (no chunk_size given) — is that intended? "
        "It ends with `''` for Zoë's ZoëClient too.\n"
        "```\nidna.core.InvalidCodepoint: Codepoint U+1F4A9 at position 1\n```\n"
        "The bundle /etc/corp/proxy-ca.pem fails for https://xn--ls8h.la/ as well."
    )
    assert q.quoted == []
    assert q.special == []
    assert q.dotted == ["r.iter_text", "idna.core.InvalidCodepoint"]
    assert q.identifiers == ["list", "iter_text", "chunk_size", "InvalidCodepoint"]


def test_exception_groups_did_you_mean_and_protocol_text() -> None:
    """starlette's audit: an exception group's error lines, behind their `|` gutter,
    were no errors; Python's `Did you mean: '…'?` hint stayed in the message; a
    backticked header or media type divided (`multipart/form-data`) and named `Match`."""
    group = parse_query(
        "  + Exception Group Traceback (most recent call last):\n"
        '  |   File "/app/x.py", line 1, in <module>\n'
        "  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)\n"
        "  +-+---------------- 1 ----------------\n"
        "    | Traceback (most recent call last):\n"
        '    |   File "/app/y.py", line 5, in f\n'
        '    |     raise ValueError("bad")\n'
        "    | ValueError: bad\n"
        "    +------------------------------------\n"
    )
    assert group.errors == [
        "ValueError: bad",
        "ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)",
    ]
    hint = parse_query("AttributeError: 'URL' object has no attribute 'nq'. Did you mean: 'ne'?")
    assert hint.errors == ["AttributeError: 'URL' object has no attribute 'nq'"]
    protocol = parse_query(
        'The `If-None-Match: W/"abc"` header, `multipart/form-data` and '
        "`content-type: text/html; charset=utf-8` bodies; `total/count` still divides."
    )
    assert protocol.identifiers == []
    assert protocol.special == ["__truediv__", "__rtruediv__", "__div__"]
    assert protocol.literals == ["multipart/form-data", "total/count", "utf-8"]


def test_a_compilers_or_linters_location_points_at_its_line() -> None:
    """cobra's audit: `doc/yaml_docs.go:156:6: QF1001 …` was read as a path alone, and
    the function at line 156 came seventh; a code host's `#L156` link had put it first.
    A frame's own location is its frame's, a URL's query string points at nothing, and
    neither does an entry file's line."""
    q = parse_query(
        "doc/yaml_docs.go:156:6: QF1001: could apply De Morgan's law (staticcheck)\n"
        "pkg/mod.py:12: error: Incompatible types in assignment\n"
        "error[E0277]: the trait bound is not satisfied\n --> src/main.rs:7:32\n"
        "src/x.ts(12,5): error TS2554: Expected 2 arguments, but got 1.\n"
        "    at f (src/x.js:3:7)\n"
        "served from http://localhost:5173/src/App.tsx?t=1:12:5, version 1.2.3:4"
    )
    assert q.anchors == [("doc/yaml_docs.go", 156), ("pkg/mod.py", 12), ("src/x.ts", 12)]
    # tsc's error is an error line (yup's audit), in both of its formats.
    assert q.errors[-1] == "error TS2554: Expected 2 arguments, but got 1."
    pretty = parse_query("src/schema.ts:40:3 - error TS2339: Property 'x' does not exist")
    assert pretty.errors == ["error TS2339: Property 'x' does not exist"]
    # A program's entry file is most often the user's own (serde_json's audit: every
    # crate has a `src/main.rs` or `src/lib.rs`); its path still names the file.
    assert "src/main.rs" in q.paths


def test_go_and_cargo_commands_run_nothing_and_rust_functions_are_the_querys_own() -> None:
    """cobra's audit: `go get …/pflag@v1.0.8` ran `__matmul__`; a Rust snippet's
    `fn main()` is the query's own, as Python's `def main():` is (it names no `main.rs`)."""
    assert parse_query("After `go get github.com/spf13/pflag@v1.0.8` it fails").special == []
    assert parse_query("and `cargo add serde@1.0` too, but `a@b` multiplies").special == [
        "__matmul__",
        "__rmatmul__",
    ]
    rust = parse_query("It panics:\n```rust\npub fn main() {\n    run();\n}\n```")
    assert rust.defined == frozenset({"main"})


def test_a_scoped_path_names_its_last_name_and_its_types() -> None:
    """serde_json's audit: "`serde_json::Map` has no `into_values()`" named no `Map`, a
    word of no code shape; `Value::as_str` is the method `Value.as_str`. The standard
    library's paths and a path's keywords name no code of the repository."""
    q = parse_query("serde_json::Map has no into_values; Value::as_str and crate::de::Deserializer")
    assert q.identifiers == ["Map", "Value", "as_str", "Deserializer", "serde_json", "into_values"]
    assert q.dotted == ["Value.as_str"]
    standard = parse_query("std::fs::read, core::mem::replace and Self::build")
    assert standard.identifiers == ["build"]
    assert standard.dotted == []
    # A test runner's node id keeps its names, read as before (no `test_a.py::` path).
    node = parse_query("tests/test_a.py::TestX::test_y failed")
    assert node.identifiers == ["TestX", "test_y"]
    assert node.dotted == []


def test_dotnet_and_php_error_lines_and_locations() -> None:
    """serilog's and guzzle's audits: .NET's crash line (`Unhandled exception. …`) and
    C#'s coded compiler errors are error lines; PHP's `in FILE on line N` points at a
    line; a program's own `Program.cs` is no location."""
    crash = parse_query("Unhandled exception. System.InvalidOperationException: no sink\n")
    assert crash.errors == ["System.InvalidOperationException: no sink"]
    build = parse_query("Program.cs(12,10): error CS1739: no parameter named 'levelSwitch'")
    assert build.errors == ["error CS1739: no parameter named 'levelSwitch'"]
    assert build.anchors == []
    php = parse_query(
        "PHP Warning:  Undefined array key 1 in /app/src/Handler/StreamHandler.php on line 104"
    )
    assert php.anchors == [("/app/src/Handler/StreamHandler.php", 104)]
    # PHP's scoped names stop at a namespace's backslash: no `Middleware.GuzzleHttp`.
    closure = parse_query("at GuzzleHttp\\Middleware::GuzzleHttp\\{closure}(Object(Request))")
    assert closure.dotted == []


def test_rubys_uncaught_exception_line_is_an_error() -> None:
    """rack's audit: Ruby's `FILE:N:in 'meth': message (Class)` kept its frame and lost
    its message, the default output of every crash; Ruby 3.4 names `Class#method`."""
    crash = parse_query(
        "/gems/rack-3.1.1/lib/rack/lint.rb:66:in `response': undefined method `call' for nil"
        " (NoMethodError)\n\tfrom app.rb:3:in `<main>'\n"
        "lib/rack/utils.rb:9:in 'Rack::Utils#parse': bad 'x y' (Rack::Utils::ParameterTypeError)"
    )
    assert crash.errors == [
        "NoMethodError: undefined method `call' for nil",
        "Rack::Utils::ParameterTypeError: bad 'x y'",
    ]
    assert [f.function for f in crash.frames] == ["response", "<main>", "Rack.Utils.parse"]
    # Ruby 3.4 quotes a frame's label: a function, no quoted message (the message's own
    # quotes stay).
    assert crash.quoted == ["x y"]
