"""The special methods a query's code runs without naming them.

An issue's example writes `ds == ds2`, `milli*W`, `repr(elem)` or `copy.deepcopy(ds)`;
the code that runs is `__eq__`, `__mul__`, `__repr__` and `__deepcopy__` of a class the
issue names, and a fix lands there often (27 of 395 issue tasks' gold functions were
special methods). `special_methods` reads which ones a text uses: operators in its code,
calls of the built-ins that dispatch to them, and a few words of prose ("pickling",
"compares equal"). Search joins them to the classes the query names (`add_named`).
"""

from __future__ import annotations

import re

_LEFT = r"(?<=[\w)\]'\"])[^\S\n]*"  # an operand ends right before the operator
_RIGHT = r"[^\S\n]*(?=[\w(\[{'\"])"  # and one starts right after it
_SPACED = r"(?<=[\w)\]'\"])[^\S\n]+{op}[^\S\n]+(?=[\w(\[{{'\"-])"  # spaced on both sides

# Operators, read only in code: prose has hyphens, slashes and asterisks of its own.
_OPERATORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (rf"{_LEFT}=={_RIGHT}", ("__eq__",)),
    (rf"{_LEFT}!={_RIGHT}", ("__ne__", "__eq__")),
    # `<stdin>`, `->` and `=>` are no comparisons: `<` and `>` alone count when spaced.
    (rf"{_LEFT}<={_RIGHT}|" + _SPACED.format(op="<"), ("__le__", "__lt__")),
    (rf"{_LEFT}>={_RIGHT}|" + _SPACED.format(op=">"), ("__ge__", "__gt__")),
    (rf"{_LEFT}\+(?![+=]){_RIGHT}", ("__add__", "__radd__")),
    (_SPACED.format(op=r"-(?![-=>])"), ("__sub__", "__rsub__")),
    (rf"{_LEFT}(?<!\*)\*(?![*=]){_RIGHT}", ("__mul__", "__rmul__")),
    (rf"{_LEFT}\*\*(?!=)[^\S\n]*(?=[\w(\[-])", ("__pow__", "__rpow__")),
    (rf"{_LEFT}@(?!=){_RIGHT}", ("__matmul__", "__rmatmul__")),
    # `a/b` with no more slashes or a file extension around it is a division; `src/x.py`
    # is a path.
    (
        r"(?<![\w./~-])\w+[^\S\n]*/[^\S\n]*\w+(?![\w./])|" + _SPACED.format(op="/"),
        ("__truediv__", "__rtruediv__", "__div__"),
    ),
    (rf"{_LEFT}//{_RIGHT}", ("__floordiv__", "__rfloordiv__")),
    (_SPACED.format(op="%"), ("__mod__", "__rmod__")),
    (rf"{_LEFT}\|(?![|=]){_RIGHT}", ("__or__", "__ror__")),
    (rf"{_LEFT}&(?![&=]){_RIGHT}", ("__and__", "__rand__")),
    (rf"{_LEFT}\^(?!=){_RIGHT}", ("__xor__", "__rxor__")),
    (r"(?<![\w)\]])~(?=[\w(])", ("__invert__",)),
    (r"(?<=[\w)\]])\[[^\]\n]*\][^\S\n]*=(?!=)", ("__setitem__",)),
    (r"\bdel[^\S\n]+[\w.]+\[", ("__delitem__",)),
    (r"(?<=[\w)\]])\[(?!\])", ("__getitem__",)),
    # Not `async with`, which runs `__aenter__`: marking those lost httpx's audit a task
    # (every async example opens its client so).
    (r"(?<!async )\bwith[^\S\n]+[\w.]+(?:\(|[^\S\n]*(?:as\b|:))", ("__enter__", "__exit__")),
)
# Built-ins that call a special method of their argument, read anywhere: `repr()` in
# prose is as clear as in code.
_BUILTINS: dict[str, tuple[str, ...]] = {
    "len": ("__len__",),
    "repr": ("__repr__",),
    "str": ("__str__",),
    "format": ("__format__",),
    "hash": ("__hash__",),
    "bool": ("__bool__",),
    "iter": ("__iter__",),
    "next": ("__next__",),
    "reversed": ("__reversed__",),
    "abs": ("__abs__",),
    "int": ("__int__", "__index__"),
    "float": ("__float__",),
    "complex": ("__complex__",),
    "round": ("__round__",),
    "divmod": ("__divmod__",),
    "dir": ("__dir__",),
    "getattr": ("__getattr__",),
    "setattr": ("__setattr__",),
    "delattr": ("__delattr__",),
    "copy": ("__copy__",),
    "deepcopy": ("__deepcopy__",),
}
_BUILTIN_CALL = re.compile(rf"(?<![\w.])(?:copy\.)?({'|'.join(_BUILTINS)})[^\S\n]*\(")
_PICKLE = ("__reduce__", "__reduce_ex__", "__getstate__", "__setstate__")
# Prose that names a protocol without its operator.
_WORDS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (re.compile(r"\b(?:un)?pickl(?:e|es|ed|ing|able)\b|\bPicklingError\b", re.I), _PICKLE),
    (re.compile(r"\bdeep[- ]?cop(?:y|ies|ied)\b", re.I), ("__deepcopy__",)),
    (
        re.compile(r"\b(?:compares?|comparing|compared)\s+(?:un)?equal|\bequality\b", re.I),
        ("__eq__",),
    ),
    (re.compile(r"\bhashable\b|\bunhashable\b", re.I), ("__hash__",)),
    (re.compile(r"\bcontext manager\b", re.I), ("__enter__", "__exit__")),
    (re.compile(r"\bf-?strings?\b", re.I), ("__format__", "__str__")),
)
_FSTRING = re.compile(r"""\bf(['"])[^'"\n]*\{[^}\n]+\}""")
_PROMPT = re.compile(r"^[^\S\n]*(?:>>>|\.\.\.|In \[\d+\]:|\$)[^\S\n]?", re.M)
# pytest's explanation of a failed assertion (`E       +  where 3 = len(x)`) and its
# diff's marks are no operators.
_PYTEST_EXPLANATION = re.compile(r"^E[^\S\n]+[-+?][^\S\n].*$", re.M)
# A string literal's text is no code: `"https://a.org/x@y"` divides nothing.
_STRING_LITERAL = re.compile(r""""[^"\n]*"|'[^'\n]*'""")
# A shell command's line (`curl … --data-binary @body.gz http://h/x`, `go get
# github.com/spf13/pflag@v1.0.8`), a URL, an
# absolute path (`/users//42`) and a code point (`U+1F4A9`) hold no operators.
_NOT_PYTHON = re.compile(
    r"^[^\S\n]*(?:curl|wget|http|printf|echo|git|pip3?|npm|npx|yarn|pnpm|docker|kubectl"
    r"|ls|cat|grep|tail|head|wc|cd|sudo|python3?|node|bash|sh|go|cargo|rustup|mvn|gradle"
    r"|dotnet|gem|bundle|composer|deno|bun|uv|poetry)[^\S\n]+[^\s(=.][^\n]*$"
    r"|\b[a-z][a-z0-9+.-]*://\S*|(?<![\w)\].])/(?=[\w/])\S*|\bU\+[0-9A-Fa-f]{4,6}\b",
    re.M,
)
# A type hint subscripts or unions no object: `Optional[str] = None`, `list[int]`,
# `str | None` (typer's audit: read as `__getitem__`, `__setitem__` and `__or__`).
_ANNOTATION = re.compile(
    r"\b(?:Optional|List|Dict|Set|FrozenSet|Tuple|Union|Type|Callable|Iterable|Iterator"
    r"|Sequence|Mapping|MutableMapping|Annotated|Literal|ClassVar|Final|Generator"
    r"|list|dict|set|frozenset|tuple|type)\[[^\]\n]*\]+"
    r"|[^\S\n]*\|[^\S\n]*None\b|\bNone[^\S\n]*\|"
)
_OPERATOR_PATTERNS = tuple((re.compile(pattern), methods) for pattern, methods in _OPERATORS)


def special_methods(code: str, text: str) -> list[str]:
    """The special methods the code spans `code` and the whole `text` use, in a fixed
    order without repeats."""
    found: dict[str, None] = {}
    code = _PROMPT.sub("", _PYTEST_EXPLANATION.sub("", code))
    code = _NOT_PYTHON.sub("", _STRING_LITERAL.sub('""', code))
    code = _ANNOTATION.sub("", code)
    for pattern, methods in _OPERATOR_PATTERNS:
        if pattern.search(code):
            found.update(dict.fromkeys(methods))
    for m in _BUILTIN_CALL.finditer(text):
        found.update(dict.fromkeys(_BUILTINS[m.group(1)]))
    if _FSTRING.search(text):
        found.update(dict.fromkeys(("__format__", "__str__")))
    for word, methods in _WORDS:
        if word.search(text):
            found.update(dict.fromkeys(methods))
    return list(found)
