"""Which files hold credentials, and how to blank credentials found inside other text.

`is_secret_path` decides from the file name alone (no I/O), case-insensitively, on the
last path component. A path is secret when its name is one of:

* dotenv files: `.env`, `.env.<anything>`, `<anything>.env`, `.envrc` -- except templates
  meant to be committed: any dotted part equal to `example`, `sample`, `template` or
  `dist` (`.env.example`, `.env.local.sample`, `example.env`) is not secret;
* key and certificate stores: `*.pem`, `*.key`, `*.p12`, `*.pfx`, `*.keystore`, `*.jks`,
  `*.ppk`;
* SSH private keys: `id_rsa*`, `id_dsa*`, `id_ecdsa*`, `id_ed25519*` -- but not `*.pub`,
  which is the public half and safe to read;
* tool credential files: `.npmrc`, `.pypirc`, `.netrc`, `_netrc`, `.git-credentials`,
  `.pgpass`, `.htpasswd`, `credentials` (so `.aws/credentials`), `credentials.json`,
  `*.credentials`;
* secret configs: `secrets.<config extension>` (yaml, yml, json, toml, ini, cfg, conf,
  env, properties). Source files such as `secrets.py` are code, not secret;
* cloud state: `service-account*.json`, `service_account*.json`, `*.tfstate`,
  `*.tfstate.backup`.

`redact_secrets` replaces secrets inside text with `[REDACTED:<kind>]`. The index run
calls it once on every file it reads, before anything is parsed or stored; frontends call
it again on what they show. It never adds or removes a newline (a private key block
keeps its line breaks after the marker), so line numbers hold, and it is idempotent.
Four kinds of rules, in this order:

* token shapes, by prefix: PEM private key blocks, AWS access key ids, GitHub, GitLab,
  Slack (tokens and webhook URLs), Discord webhook URLs, Stripe (`sk_`/`rk_` live and
  test keys, `whsec_`), OpenAI/Anthropic `sk-`, Google `AIza`, npm, PyPI, Hugging Face,
  SendGrid, Django `django-insecure-` keys, Azure `AccountKey=`, JWTs;
* credentials in a URL of any scheme, `scheme://user:PASSWORD@host`: only the password;
* `Bearer <token>` and `Basic <base64>` (as in an `Authorization` header) when the token
  looks random (see below);
* a value assigned to (or compared with) a secret-looking name, in Python, JS/TS, Go,
  YAML, JSON, TOML, .ini, .properties and dotenv syntax. The name's last word decides,
  case-insensitively and across snake, kebab, dotted and camel case: `password`,
  `passwd`, `passphrase`, `pwd` and (after another word) `pass` make a *password* name;
  `secret`, `token`, `credential(s)` and `api/secret/private/access/auth/signing/
  encryption/master/account/client/app` + `key` make a *secret* name (a bare `key` or
  `pass`, a name with `public`, and a `::`-qualified type name are neither). Quoted
  values are judged anywhere; unquoted ones only when the line is `NAME = value` /
  `NAME: value` (after indentation, `export ` or `- `), as in config files.

What counts as a secret value:

* never: an empty value, a template or placeholder (`${X}`, `{{ x }}`, `{x}`, `%(x)s`,
  `%s`, `$X`, `<x>`, `[x]`, a single repeated character such as `xxx` or `***`, the
  words `password`, `secret`, `changeme`, `example`, `dummy`, `test`, `none`, `null`…,
  anything starting with `your` or ending with `here`), a value with a blank, a path or
  URL, a regex character class; unquoted, code: a call, subscript or dotted name
  (`os.environ["X"]`, `settings.API_KEY`), a digit-free or snake_case identifier
  (`pw_from_env`, `None`), a number;
* for a *password* name: any other literal of 6+ characters, dictionary words included
  (`hunter2`, `supersecret` are real passwords), except a digit-free multi-word name
  (`new_password`, `newPassword`, the field names of forms and serializers);
* for a *secret* name, and after Bearer/Basic: 16+ (12+) characters with a letter,
  Shannon entropy of at least 3 bits per character, and, when letter-only, a change of
  case about every other character (words and identifiers change every 5+).

So UUIDs and hashes are redacted only when assigned to a secret name (a client secret
may be a UUID; a lockfile's `integrity`/`hash` is not a secret). Known gaps: a password
in a URL's placeholder spelling (`user:password@`), an unquoted password that reads as
a name (`password: supersecret` in YAML), values split over lines, XML elements.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from functools import partial

_ENV_TEMPLATE_PARTS = frozenset({"example", "sample", "template", "dist"})

_SECRET_NAMES = frozenset(
    {
        ".envrc",
        ".npmrc",
        ".pypirc",
        ".netrc",
        "_netrc",
        ".git-credentials",
        ".pgpass",
        ".htpasswd",
        "credentials",
        "credentials.json",
    }
)

_SECRET_SUFFIXES = (
    ".pem",
    ".key",
    ".p12",
    ".pfx",
    ".keystore",
    ".jks",
    ".ppk",
    ".credentials",
    ".tfstate",
    ".tfstate.backup",
)

_SSH_KEY_PREFIXES = ("id_rsa", "id_dsa", "id_ecdsa", "id_ed25519")

_SECRETS_CONFIG_EXTENSIONS = frozenset(
    {"yaml", "yml", "json", "toml", "ini", "cfg", "conf", "env", "properties"}
)


def _is_env_file(name: str) -> bool:
    if not (name == ".env" or name.startswith(".env.") or name.endswith(".env")):
        return False
    return _ENV_TEMPLATE_PARTS.isdisjoint(name.split("."))


def is_secret_path(path: str) -> bool:
    """True when the repo-relative posix `path` names a file that likely holds credentials."""
    name = path.rstrip("/").rsplit("/", 1)[-1].lower()
    if not name:
        return False
    if name in _SECRET_NAMES or name.endswith(_SECRET_SUFFIXES):
        return True
    if _is_env_file(name):
        return True
    if name.startswith(_SSH_KEY_PREFIXES):
        return not name.endswith(".pub")
    stem, dot, ext = name.partition(".")
    if stem == "secrets" and dot and ext in _SECRETS_CONFIG_EXTENSIONS:
        return True
    return name.endswith(".json") and name.startswith(("service-account", "service_account"))


# -- redaction ----------------------------------------------------------------------------
#
# Shapes: each pattern starts with a literal so that `re` can jump between candidate
# positions with a fast search; a leading `\b` would disable that and cost ~20x. The
# word-boundary check therefore sits just after the prefix, as a lookbehind over it. A
# group named `s` marks the secret when the rest of the match stays readable (a webhook's
# host). A private key's body is base64 and `Name: value` headers (`\\` for PEM inside
# JSON with `\n` escapes), so code between a BEGIN and an END constant is not a key; the
# alternative without an END line covers a chunk cut mid-key and runs to the body's end.
_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        (
            "private_key",
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[A-Za-z0-9+/=\s:,\\-]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"|[A-Za-z0-9+/=\s:,\\-]{16,})",
        ),
        ("aws_access_key_id", r"(?:AKIA|ASIA)(?<!\w....)[0-9A-Z]{16}(?![0-9A-Za-z_])"),
        ("github_token", r"gh[pousr]_(?<!\w....)[A-Za-z0-9]{36,}"),
        ("github_token", r"github_pat_(?<!\w...........)[A-Za-z0-9_]{22,}"),
        ("gitlab_token", r"glpat-(?<!\w......)[A-Za-z0-9_-]{20,}"),
        ("slack_token", r"xox[abeprs]-(?<!\w.....)[A-Za-z0-9-]{10,}"),
        ("slack_webhook", r"hooks\.slack\.com/(?:services|workflows)/(?P<s>[A-Za-z0-9_/-]{20,})"),
        (
            "discord_webhook",
            r"discord(?:app)?\.com/api/webhooks/(?P<s>[0-9]{5,}/[A-Za-z0-9_-]{20,})",
        ),
        ("stripe_webhook_secret", r"whsec_(?<!\w......)[A-Za-z0-9+/=]{24,}"),
        (
            "api_key",
            r"sk-(?<!\w...)(?:[A-Za-z0-9]{20,}|(?:proj|ant|svcacct|admin)-[A-Za-z0-9_-]{20,})",
        ),
        ("google_api_key", r"AIza(?<!\w....)[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
        ("npm_token", r"npm_(?<!\w....)[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
        ("pypi_token", r"pypi-AgE(?<!\w........)[A-Za-z0-9_-]{50,}"),
        ("huggingface_token", r"hf_(?<!\w...)[A-Za-z0-9]{34,}(?![A-Za-z0-9_])"),
        ("sendgrid_key", r"SG\.(?<!\w...)[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
        ("django_secret_key", r"django-insecure-(?<!\w.{16})[^\s'\"`]{20,}"),
        ("jwt", r"eyJ(?<!\w...)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    )
)
# Shapes whose regex cannot start with one literal come with hints, substrings that any
# match holds: `in` rules them out ~8x faster than the regex's search for a set or an
# alternation. (For the shapes above a hint would cost as much as the regex.)
_HINTED_SHAPES: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    (
        "stripe_key",
        ("k_live_", "k_test_"),
        re.compile(r"[rs]k_(?:live|test)_(?<!\w........)[0-9A-Za-z]{24,}"),
    ),
    (
        "azure_storage_key",
        ("Key=",),
        re.compile(r"(?:Account|SharedAccess)Key=(?P<s>[A-Za-z0-9+/]{30,}={0,2})"),
    ),
)

# Credentials in a URL of any scheme: only the password is replaced, so the URL stays
# readable (`postgres://app:[REDACTED:password]@db:5432/app`).
_URL_PASSWORD = re.compile(
    r"://(?P<user>[^\s:/?#@\"'`<>\[\]]*):(?P<s>[^\s/?#@\"'`<>\[\]]+)@(?![\s/\"'`])"
)
# `Authorization: Bearer <token>` / `Basic <base64>`, written anywhere.
_AUTH_WORDS = (b"bearer", b"basic")
_AUTH_SCHEME = re.compile(
    r"(?:bearer|basic)[ \t]+(?P<s>[A-Za-z0-9._~+/-]{12,}=*)(?![A-Za-z0-9._~+/=-])",
    re.IGNORECASE,
)
# An assignment (or comparison) whose name ends with a secret word, in the syntaxes of
# Python, JS/TS, Go, YAML, JSON, TOML, .ini, .properties and dotenv: `NAME = "v"`,
# `NAME: v`, `"name": "v"`, `NAME=v`, `name := "v"`, `'name' => 'v'`, `name: str = "v"`,
# `name == "v"`, `headers["X-Api-Key"] = "v"`. The regex anchors on the last word of the
# name; `_replace_assignment` reads the whole name back and judges the value. `dq`, `sq`
# and `bq` are quoted values (after any string prefix such as r/b/f), `uv` an unquoted
# value that ends its line.
_NAME_ENDINGS = (b"pass", b"pwd", b"secret", b"token", b"key", b"credential")
_ASSIGNMENT = re.compile(
    r"""(?P<kw>pass(?:word|wd|phrase)?|pwd|secret|token|key|credentials?)
    (?:["']\]?)?[ \t]*
    (?::=|=>|[=!]==?|=(?![=~>])|:(?![:=/])(?:[ \t]*[A-Za-z_][\w.\[\],| ]{0,80}?[ \t]*=(?![=~>]))?)
    [ \t]*
    (?:
        [rbufRBUF]{0,2}
        (?:"(?P<dq>(?:[^"\\\n]|\\.)*)"|'(?P<sq>(?:[^'\\\n]|\\.)*)'|`(?P<bq>[^`\n]*)`)
      | (?P<uv>[^\s"'`]+)(?=[ \t]*(?:[#;].*)?$)
    )""",
    re.IGNORECASE | re.MULTILINE | re.VERBOSE,
)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
_NAME_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# What may stand before a name whose value is unquoted: indentation, `export `, a YAML list
# dash, an opening quote. Anything else (`f(password=pw)`) is code, not configuration.
_LINE_START = re.compile(r"[ \t]*(?:export[ \t]+|set[ \t]+|-[ \t]+)?[\"']?")
_PASSWORD_ENDINGS = ("password", "passwd", "passphrase")
_KEY_ENDINGS = (
    "apikey",
    "secretkey",
    "privatekey",
    "accesskey",
    "authkey",
    "signingkey",
    "encryptionkey",
    "masterkey",
    "accountkey",
    "clientkey",
    "appkey",
)
_TEMPLATE = re.compile(r"\$\{|\{\{|\{%|%\(|<%|^\$[A-Za-z_]|^%[sd]$|\{[^{}\s]*\}|^<[^>]*>$|^\[.*\]$")
_PLACEHOLDER_WORDS = frozenset(
    {
        "password",
        "passwd",
        "pass",
        "pwd",
        "secret",
        "secretkey",
        "token",
        "apikey",
        "key",
        "changeme",
        "changeit",
        "placeholder",
        "example",
        "sample",
        "dummy",
        "test",
        "none",
        "null",
        "nil",
        "undefined",
        "true",
        "false",
        "todo",
        "fixme",
        "tbd",
        "redacted",
        "hidden",
        "masked",
        "notset",
        "unset",
        "default",
        "required",
        "mypassword",
        "yourpassword",
        "mysecret",
        "yoursecret",
    }
)
_PLACEHOLDER_PARTS = ("changeme", "placeholder", "redacted", "replaceme")
_WORDS = re.compile(r"[A-Za-z]+(?:[-_.:/]+[A-Za-z]+)*")
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*")
_PASCAL_END = re.compile(r"[A-Z][a-z]{2,}$")
_NUMBER = re.compile(r"[-+]?[0-9][0-9_.]*")
_MULTI_WORD = re.compile(r"[A-Za-z]+(?:[-_.][A-Za-z]+)+|[a-z]+(?:[A-Z][a-z]*)+")
_CALL_OR_SUBSCRIPT = re.compile(r"[A-Za-z_$][\w$.]*[(\[]")
_MIN_PASSWORD = 6
_MIN_RANDOM = 16
_MIN_ENTROPY = 3.0  # bits per character


def redact_secrets(text: str) -> tuple[str, int]:
    """Replace each secret in `text` by `[REDACTED:<kind>]`; see the module docstring.

    Returns the new text and the number of replacements. Never adds or removes a newline,
    so line numbers of redacted text are those of the original; redacting twice changes
    nothing more.
    """
    found = [0]
    for kind, pattern in _SHAPES:
        text = pattern.sub(partial(_replace_shape, kind=kind, found=found), text)
    for kind, hints, pattern in _HINTED_SHAPES:
        if any(hint in text for hint in hints):
            text = pattern.sub(partial(_replace_shape, kind=kind, found=found), text)
    if "://" in text:
        text = _URL_PASSWORD.sub(partial(_replace_url_password, found=found), text)
    return _redact_at_words(text, found), found[0]


def _replace_shape(m: re.Match[str], *, kind: str, found: list[int]) -> str:
    found[0] += 1
    marker = f"[REDACTED:{kind}]"
    if "s" in m.re.groupindex:
        return _splice(m, "s", marker)
    return marker + "\n" * m.group(0).count("\n")


def _replace_url_password(m: re.Match[str], *, found: list[int]) -> str:
    if _is_placeholder(m.group("s")):
        return m.group(0)
    found[0] += 1
    return _splice(m, "s", "[REDACTED:password]")


def _redact_at_words(text: str, found: list[int]) -> str:
    """Redact auth-header tokens and secret-named assignments.

    `re` has no fast search for these patterns (they start with a set or an alternation),
    so candidates are found with `bytes.find` on a lowered one-byte-per-character copy and
    each pattern is only tried there.
    """
    # ASCII-lowered bytes keep every position (a non-Latin-1 character becomes one "?"),
    # at a sixth of the cost of str.lower() on non-ASCII text.
    haystack = text.encode("latin-1", "replace").lower()
    starts: list[tuple[int, re.Pattern[str]]] = []
    for words, pattern in ((_AUTH_WORDS, _AUTH_SCHEME), (_NAME_ENDINGS, _ASSIGNMENT)):
        for word in words:
            at = haystack.find(word)
            while at >= 0:
                starts.append((at, pattern))
                at = haystack.find(word, at + 1)
    if not starts:
        return text
    pieces: list[str] = []
    done = 0
    for start, pattern in sorted(starts, key=lambda item: item[0]):
        if start < done:
            continue
        m = pattern.match(text, start)
        if m is None:
            continue
        if pattern is _AUTH_SCHEME:
            replaced = _replace_auth(m, found)
        else:
            replaced = _replace_assignment(m, found)
        if replaced is not None:
            pieces += (text[done:start], replaced)
            done = m.end()
    return "".join((*pieces, text[done:])) if pieces else text


def _replace_auth(m: re.Match[str], found: list[int]) -> str | None:
    if m.start() > 0 and m.string[m.start() - 1].isalpha():
        return None
    token = m.group("s").rstrip(".")  # a sentence's full stop, not part of the token
    if not _looks_random(token, quoted=True, min_length=12):
        return None
    found[0] += 1
    kind = "basic_auth" if m.group(0)[1] in "aA" else "bearer_token"  # bAsic / bEarer
    offset = m.start("s") - m.start()
    whole = m.group(0)
    return f"{whole[:offset]}[REDACTED:{kind}]{whole[offset + len(token) :]}"


def _replace_assignment(m: re.Match[str], found: list[int]) -> str | None:
    group = next(g for g in ("dq", "sq", "bq", "uv") if m.group(g) is not None)
    value = m.group(group)
    text = m.string
    start = m.start()
    while start > 0 and text[start - 1] in _NAME_CHARS:
        start -= 1
    if text.startswith("::", start - 2):
        return None  # a qualified type name as a key: `"AWS::ApiGateway::ApiKey": "<hash>"`
    kind = _name_kind(text[start : m.end("kw")])
    if kind is None:
        return None
    quoted = group != "uv"
    if not quoted:
        line_start = text.rfind("\n", 0, start) + 1
        if not _LINE_START.fullmatch(text, line_start, start):
            return None
        value = value.rstrip(",;")
    if kind == "password":
        secret = _looks_like_password(value, quoted=quoted)
    else:
        secret = _looks_random(value, quoted=quoted, min_length=_MIN_RANDOM)
    if not secret:
        return None
    found[0] += 1
    offset = m.start(group) - m.start()
    whole = m.group(0)
    return f"{whole[:offset]}[REDACTED:{kind}]{whole[offset + len(value) :]}"


def _splice(m: re.Match[str], group: str, marker: str) -> str:
    whole, offset = m.group(0), m.start(group) - m.start()
    return f"{whole[:offset]}{marker}{whole[m.end(group) - m.start() :]}"


def _name_kind(name: str) -> str | None:
    """`password`, `aws_secret_access_key` or `secret` for a secret-looking name, else None."""
    words = [w.lower() for w in _NAME_WORDS.findall(name)]
    if not words or "public" in words:  # publicKeyToken, public_key: published on purpose
        return None
    joined = "".join(words)
    if joined.endswith(_PASSWORD_ENDINGS) or words[-1] == "pwd":
        return "password"
    if words[-1] == "pass" and len(words) > 1:  # db_pass; alone it is often a pass band
        return "password"
    if words[-1] == "key" and not joined.endswith(_KEY_ENDINGS):
        return None
    if not joined.endswith(("secret", "token", "credential", "credentials", *_KEY_ENDINGS)):
        return None
    if "aws" in words and "secret" in words:
        return "aws_secret_access_key"
    return "secret"


def _is_placeholder(value: str) -> bool:
    low = value.strip().lower()
    if not low or _TEMPLATE.search(value.strip()):
        return True
    if len(set(low) - set("-_. ")) <= 1:  # xxxx, ****, 0000
        return True
    squashed = "".join(c for c in low if c.isalnum())
    return (
        squashed in _PLACEHOLDER_WORDS
        or any(part in squashed for part in _PLACEHOLDER_PARTS)
        or low.startswith("your")
        or low.endswith(("here", "goes"))
    )


def _is_not_a_literal_secret(value: str, *, quoted: bool) -> bool:
    """What rules a value out for both name classes: blanks, placeholders, paths, regex
    classes and, unquoted, code (`pw_from_env`, `settings.KEY`, `get_key()`)."""
    if any(c.isspace() for c in value) or _is_placeholder(value):
        return True
    if value.startswith(("/", "./", "../", "~/")) or "://" in value:
        return True  # a path, or a URL (whose password has its own rule)
    if "[" in value and "]" in value:
        return True  # a regex character class
    if quoted:
        return False
    if _CALL_OR_SUBSCRIPT.match(value):
        return True  # `get_password()`, `models.CharField(max_length=128)`, `Optional[str]`
    # A name in code: dotted, snake_case, digit-free or ending like a class name. An
    # unquoted password that reads like a name (`password: supersecret`) is missed.
    return bool(_IDENTIFIER.fullmatch(value)) and (
        not any(c.isdigit() for c in value)
        or "." in value
        or "_" in value
        or bool(_PASCAL_END.search(value))
    )


def _looks_like_password(value: str, *, quoted: bool) -> bool:
    """A literal password: 6+ characters, not a placeholder, path, name or (unquoted)
    number."""
    if len(value) < _MIN_PASSWORD or _is_not_a_literal_secret(value, quoted=quoted):
        return False
    if not quoted and _NUMBER.fullmatch(value):  # `ERROR_BAD_PASSWORD: Final = -2146893773`
        return False
    # A field or variable name: "new_password", "DB_PASSWORD", "newPassword".
    return any(c.isdigit() for c in value) or not _MULTI_WORD.fullmatch(value)


def _looks_random(value: str, *, quoted: bool, min_length: int) -> bool:
    """A literal that looks like a generated key or token, not a word, name or path."""
    if len(value) < min_length or _is_not_a_literal_secret(value, quoted=quoted):
        return False
    if not any(c.isalpha() for c in value):
        return False
    if not any(c.isdigit() for c in value) and _WORDS.fullmatch(value):
        # Letters only: identifiers and words change case about every 5+ characters,
        # random strings about every other one.
        humps = sum(1 for a, b in itertools.pairwise(value) if a.islower() and b.isupper())
        if humps * 5 <= len(value):
            return False
    return _entropy(value) >= _MIN_ENTROPY


def _entropy(value: str) -> float:
    """Shannon entropy of `value`, in bits per character."""
    size = len(value)
    return -sum(n / size * math.log2(n / size) for n in Counter(value).values())
