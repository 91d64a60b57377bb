"""Which files hold credentials, how to blank credentials inside other text, and how to
tell that a memory holds one.

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

`find_secrets` decides whether a memory (a short note, mostly prose) may be stored: it
runs the same rules through the same walk (`_run`) and returns a `SecretFinding(kind,
line, hint)` per secret, in line order, whose hint names the shape and never the value.
It adds memory-only rules, which redaction leaves out because they would misread code
("the password is hashed" in a comment) and change what the index stores:

* more token shapes: Slack `xapp-`, GitLab `glrt-`/`gldt-`/... and runner tokens, Google
  `GOCSPX-` client secrets and `ya29.` access tokens, Shopify `shpat_`, DigitalOcean
  `dop_v1_`, age secret keys, PuTTY key files;
* parameters of connection URLs and strings (`?user=app&passwd=...`, `;Password=...;`,
  an Azure SAS `&sig=...`), `curl -u user:PASSWORD`, `--password VALUE`, `.netrc` lines;
* a secret name and its value anywhere in a sentence: "the staging DB password is X",
  "API key: X", "the bot's password was changed to `X`", `PGPASSWORD=X psql`. Up to three
  words before the secret word make the name ("AWS secret access key", but "public key",
  "primary key" and "boarding pass" are none); values are judged as above, so an
  unquoted word or name is talk ("the token is checked in ...", "password is required"),
  and a version, a date or an `arn:`-style reference is no value.

Kinds: `private_key`, `aws_access_key_id`, `aws_secret_access_key`, `github_token`,
`gitlab_token`, `slack_token`, `slack_webhook`, `discord_webhook`, `stripe_key`,
`stripe_webhook_secret`, `api_key` (OpenAI, Anthropic), `google_api_key`,
`google_oauth_secret`, `google_oauth_token`, `npm_token`, `pypi_token`,
`huggingface_token`, `sendgrid_key`, `shopify_token`, `digitalocean_token`,
`django_secret_key`, `jwt`, `azure_storage_key`, `azure_sas_token`, `bearer_token`,
`basic_auth`, `connection_string` (a URL's or connection string's password), `password`,
`secret`.

Examples and fixtures are not reported (redaction still blanks them, it costs nothing):

* documented values: any holding `example`, `sample`, `dummy`, `placeholder` or `notreal`
  in one case (`EXAMPLE`, `Example`, `example`; so AWS's `AKIAIOSFODNN7EXAMPLE` and
  `wJalr...EXAMPLEKEY`), Stripe's published `sk_test_` keys, jwt.io's sample token;
* fixtures: a value that, after a token prefix such as `ghp_` or `sk_live_`, is made only
  of `test`, `testing`, `fake`, `dummy`, `example`, `sample`, `foo`, `bar`, `baz`, `demo`,
  digits and `-_.` with one of those words (`test1234`, `sk_live_fakefake...`), or is a
  filler under 2 bits of entropy per character (`ghp_xxxx...`, `aaaa1111`);
* credentials for a documentation host (`example.com`, `*.example`, `*.test`,
  `*.invalid`), local defaults whose password is the user name
  (`postgres:postgres@localhost`, `curl -u admin:admin`), and `Basic` credentials whose
  password is a placeholder (`username:password`).

`test` alone is no marker: Stripe's `sk_test_` keys are live credentials for an account's
test mode and are reported unless published, and `Test!2024` is a real password.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from codecompass.hashing import canonical_text

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


@dataclass(frozen=True, slots=True)
class SecretFinding:
    """A secret in a text: its kind, its 1-based line and a hint naming its shape (never
    its value), e.g. `SecretFinding("aws_access_key_id", 2, "an AWS access key id (AKIA…)")`.
    """

    kind: str
    line: int
    hint: str


class _Scan:
    """One run of the rules over a text: counts what is redacted and, for `find_secrets`
    (`memory`), also runs the memory-only rules and records findings, leaving out
    documented examples and fixtures."""

    __slots__ = ("count", "findings", "memory")

    def __init__(self, *, memory: bool) -> None:
        self.memory = memory
        self.count = 0
        self.findings: list[SecretFinding] = []

    def found(self, m: re.Match[str], kind: str, value: str, *, example: bool = False) -> None:
        self.count += 1
        if self.memory and not example and not _is_example(kind, value):
            line = m.string.count("\n", 0, m.start()) + 1
            self.findings.append(SecretFinding(kind, line, _HINTS[kind]))


_WordHandler = Callable[[re.Match[str], _Scan], str | None]
_WordRules = tuple[tuple[tuple[bytes, ...], re.Pattern[str], _WordHandler], ...]


def redact_secrets(text: str) -> tuple[str, int]:
    """Replace each secret in `text` by `[REDACTED:<kind>]`; see the module docstring.

    Returns the new text and the number of replacements. Never adds or removes a newline,
    so line numbers of redacted text are those of the original; redacting twice changes
    nothing more.
    """
    scan = _Scan(memory=False)
    return _run(text, scan), scan.count


def stored_text(text: str) -> str:
    """A file's decoded text as the index stores it, and as everything that shows its
    lines must read it: canonical (`hashing.canonical_text`), then redacted."""
    return redact_secrets(canonical_text(text))[0]


def find_secrets(text: str) -> list[SecretFinding]:
    """The secrets in `text` (a memory, a note: prose rather than code), in line order.

    The rules of `redact_secrets` plus the memory-only ones; documented example values and
    obvious fixtures are left out (see the module docstring). An empty list means `text`
    may be stored.
    """
    scan = _Scan(memory=True)
    _run(text, scan)
    return sorted(scan.findings, key=lambda finding: finding.line)


def _run(text: str, scan: _Scan) -> str:
    """Apply every rule in order, each to the text as redacted by the rules before it, so
    that a secret is reported once: a later rule sees `[REDACTED:…]`, a placeholder."""
    for kind, pattern in _SHAPES:
        text = pattern.sub(partial(_replace_shape, kind=kind, scan=scan), text)
    for kind, hints, pattern in _HINTED_SHAPES:
        if any(hint in text for hint in hints):
            text = pattern.sub(partial(_replace_shape, kind=kind, scan=scan), text)
    if scan.memory:
        for kind, pattern in _MEMORY_SHAPES:
            text = pattern.sub(partial(_replace_shape, kind=kind, scan=scan), text)
    if "://" in text:
        text = _URL_PASSWORD.sub(partial(_replace_url_password, scan=scan), text)
    text = _redact_at_words(text, scan, _CODE_WORD_RULES)
    if scan.memory:
        for pattern, handler in _MEMORY_RULES:
            text = pattern.sub(partial(handler, scan=scan), text)
        text = _redact_at_words(text, scan, _PROSE_WORD_RULES)
    return text


def _replace_shape(m: re.Match[str], *, kind: str, scan: _Scan) -> str:
    marker = f"[REDACTED:{kind}]"
    if "s" in m.re.groupindex:
        scan.found(m, kind, m.group("s"))
        return _splice(m, "s", marker)
    scan.found(m, kind, m.group(0))
    return marker + "\n" * m.group(0).count("\n")


def _replace_url_password(m: re.Match[str], *, scan: _Scan) -> str:
    password = m.group("s")
    if _is_placeholder(password):
        return m.group(0)
    scan.found(m, "connection_string", password, example=scan.memory and _is_url_example(m))
    return _splice(m, "s", "[REDACTED:password]")


def _redact_at_words(text: str, scan: _Scan, rules: _WordRules) -> str:
    """Redact what `rules` find: each rule's pattern is tried where one of its words starts.

    `re` has no fast search for these patterns (they start with a set or an alternation),
    so candidates are found with `bytes.find` on a lowered one-byte-per-character copy and
    each pattern is only tried there.
    """
    # ASCII-lowered bytes keep every position (a non-Latin-1 character becomes one "?"),
    # at a sixth of the cost of str.lower() on non-ASCII text.
    haystack = text.encode("latin-1", "replace").lower()
    starts: list[tuple[int, re.Pattern[str], _WordHandler]] = []
    for words, pattern, handler in rules:
        for word in words:
            at = haystack.find(word)
            while at >= 0:
                starts.append((at, pattern, handler))
                at = haystack.find(word, at + 1)
    if not starts:
        return text
    pieces: list[str] = []
    done = 0
    for start, pattern, handler in sorted(starts, key=lambda item: item[0]):
        if start < done:
            continue
        m = pattern.match(text, start)
        if m is None:
            continue
        replaced = handler(m, scan)
        if replaced is not None:
            pieces += (text[done:start], replaced)
            done = m.end()
    return "".join((*pieces, text[done:])) if pieces else text


def _replace_auth(m: re.Match[str], scan: _Scan) -> str | None:
    if m.start() > 0 and m.string[m.start() - 1].isalpha():
        return None
    token = m.group("s").rstrip(".")  # a sentence's full stop, not part of the token
    if not _looks_random(token, quoted=True, min_length=12):
        return None
    kind = "basic_auth" if m.group(0)[1] in "aA" else "bearer_token"  # bAsic / bEarer
    example = scan.memory and kind == "basic_auth" and _is_basic_example(token)
    scan.found(m, kind, token, example=example)
    return _mark(m, "s", token, kind)


def _replace_assignment(m: re.Match[str], scan: _Scan) -> str | None:
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
    return _judged(m, scan, kind, group, value, quoted=quoted)


def _mark(m: re.Match[str], group: str, value: str, kind: str) -> str:
    """`m`'s text with `value`, at the start of `group`, replaced by a marker."""
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


_CODE_WORD_RULES: _WordRules = (
    (_AUTH_WORDS, _AUTH_SCHEME, _replace_auth),
    (_NAME_ENDINGS, _ASSIGNMENT, _replace_assignment),
)


# -- memories -----------------------------------------------------------------------------
#
# Rules that only `find_secrets` runs: memories are short, so speed does not matter, and
# these would misread code (a comment's "the password is hashed") or change what the index
# stores. Token shapes here have no literal-first trick; a lookbehind guards the prefix.
_MEMORY_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("slack_token", r"(?<![\w-])xapp-[0-9]-[A-Za-z0-9-]{20,}"),
        (
            "gitlab_token",
            r"(?<![\w-])(?:gl(?:dt|rt|ptt|cbt|ft|soat|agent)-[A-Za-z0-9_-]{20,}"
            r"|GR1348941[A-Za-z0-9_-]{20,})",
        ),
        ("google_oauth_secret", r"(?<![\w-])GOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])"),
        ("google_oauth_token", r"(?<![\w-])ya29\.[A-Za-z0-9_-]{30,}"),
        ("shopify_token", r"(?<![\w-])shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}(?![A-Za-z0-9])"),
        ("digitalocean_token", r"(?<![\w-])do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])"),
        ("private_key", r"(?<![\w-])AGE-SECRET-KEY-1[0-9A-Z]{58}(?![0-9A-Z])"),
        ("private_key", r"PuTTY-User-Key-File-[23]:[^\n]*"),  # the header of a .ppk file
    )
)

# `?user=app&passwd=…` in a JDBC or database URL, `;Password=…;` in an ADO.NET or ODBC
# connection string, `&sig=…` in an Azure SAS URL.
_CONN_PARAM = re.compile(
    r"[?&;][ \t]*(?P<name>[A-Za-z][A-Za-z0-9 _.-]{0,30}?)[ \t]*=[ \t]*(?P<s>[^&;\s\"'`]+)"
)
# `--password hunter2`, `--api-key "…"` (the `=` form is prose's `name=value`).
_CLI_FLAG = re.compile(
    r"(?<![\w-])--?(?P<name>[A-Za-z][\w-]*)[ \t]+"
    r"(?:\"(?P<dq>[^\"\n]*)\"|'(?P<sq>[^'\n]*)'|(?P<uv>[^\s\"'`]+))"
)
# `curl -u user:password`.
_CLI_USER = re.compile(r"(?<![\w-])(?:-u|--user)[ \t]+[\"']?(?P<user>[^\s:\"'@]+):(?P<s>[^\s\"']+)")
# A `.netrc` line.
_NETRC = re.compile(r"\bmachine[ \t]+\S+(?:[ \t]+login[ \t]+\S+)?[ \t]+password[ \t]+(?P<s>\S+)")
# A secret word followed by a value, as prose says it: "the staging DB password is X",
# "API key: X", "the password for the bot was changed to `X`", "PGPASSWORD=X psql".
# `_replace_prose` reads back the words before the secret word ("API key", "AWS secret
# access key") and judges the value.
_PROSE = re.compile(
    r"""(?P<kw>pass(?:word|wd|phrase)?|pwd|secret|token|key|credentials?)
    (?:["'`]\]?)?
    (?:[ \t]+(?:for|of|on|in|at)(?:[ \t]+[\w.@'-]+){1,3}?)?
    (?:
        [ \t]*(?:=|:(?!:)|->)
      | [ \t]+(?:is|was|are|were)(?:[ \t]+(?:now|still|set[ \t]+to|changed[ \t]+to))?[ \t]*:?
    )
    [ \t]*
    (?:
        "(?P<dq>[^"\n]*)"|'(?P<sq>[^'\n]*)'|`(?P<bq>[^`\n]*)`
      | (?P<uv><[^>\n]*>|\$\{[^}\n]*\}|\{\{[^}\n]*\}\}|[^\s"'`]+)
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_WORDS_BEFORE = re.compile(r"(?:[A-Za-z][\w'-]*[ \t]+){1,3}$")
# Unquoted values prose puts after "is"/":" that are not secrets: a version, a date, a
# reference such as `arn:aws:…` or `vault:secret/…`.
_PROSE_NOT_A_VALUE = re.compile(
    r"v?[0-9]+(?:\.[0-9]+)+\b|[0-9]{4}-[0-9]{2}-[0-9]{2}|[a-z][a-z0-9+.-]{2,}:"
)


def _replace_conn_param(m: re.Match[str], *, scan: _Scan) -> str:
    name, value = m.group("name"), m.group("s")
    kind: str | None
    if name.lower() == "sig":
        kind = "azure_sas_token"
        secret = _looks_random(value, quoted=True, min_length=_MIN_RANDOM)
    else:
        kind = _name_kind(name)
        if kind == "password":
            kind = "connection_string"
            secret = _looks_like_password(value, quoted=True)
        else:
            secret = kind is not None and _looks_random(value, quoted=True, min_length=_MIN_RANDOM)
    if kind is None or not secret:
        return m.group(0)
    scan.found(m, kind, value)
    return _splice(m, "s", f"[REDACTED:{kind}]")


def _replace_cli_flag(m: re.Match[str], *, scan: _Scan) -> str:
    kind = _name_kind(m.group("name"))
    if kind is None:
        return m.group(0)
    group = next(g for g in ("dq", "sq", "uv") if m.group(g) is not None)
    replaced = _judged(m, scan, kind, group, m.group(group), quoted=group != "uv")
    return m.group(0) if replaced is None else replaced


def _replace_cli_user(m: re.Match[str], *, scan: _Scan) -> str:
    password = m.group("s")
    if not _looks_like_password(password, quoted=True):
        return m.group(0)
    scan.found(m, "basic_auth", password, example=password.lower() == m.group("user").lower())
    return _splice(m, "s", "[REDACTED:basic_auth]")


def _replace_netrc(m: re.Match[str], *, scan: _Scan) -> str:
    replaced = _judged(m, scan, "password", "s", m.group("s"), quoted=True)
    return m.group(0) if replaced is None else replaced


def _replace_prose(m: re.Match[str], scan: _Scan) -> str | None:
    kind = _prose_name_kind(m)
    if kind is None:
        return None
    group = next(g for g in ("dq", "sq", "bq", "uv") if m.group(g) is not None)
    value = m.group(group)
    quoted = group != "uv"
    if not quoted:
        value = value.rstrip(".,;:!?)")  # the end of the sentence
        if _PROSE_NOT_A_VALUE.match(value):
            return None
    return _judged(m, scan, kind, group, value, quoted=quoted)


def _judged(
    m: re.Match[str], scan: _Scan, kind: str, group: str, value: str, *, quoted: bool
) -> str | None:
    """`m` with `value` marked when it looks like a secret of `kind`, else None."""
    if kind == "password":
        secret = _looks_like_password(value, quoted=quoted)
    else:
        secret = _looks_random(value, quoted=quoted, min_length=_MIN_RANDOM)
    if not secret:
        return None
    scan.found(m, kind, value)
    return _mark(m, group, value, kind)


def _prose_name_kind(m: re.Match[str]) -> str | None:
    """The kind of the name that ends with `m`'s secret word, with up to three words
    before it when they make it one ("API key", "AWS secret access key")."""
    text = m.string
    start = m.start()
    while start > 0 and text[start - 1] in _NAME_CHARS:
        start -= 1
    name = text[start : m.end("kw")]
    narrow = _name_kind(name)
    before = _WORDS_BEFORE.search(text, max(0, start - 80), start)
    wide = _name_kind(before.group(0) + name) if before else narrow
    # Words before may qualify a bare `key`, or say `public`; a "boarding pass" is no
    # password.
    if wide is None or (narrow is None and not name.lower().endswith("key")):
        return None
    return wide


_MEMORY_RULES: tuple[tuple[re.Pattern[str], Callable[..., str]], ...] = (
    (_CONN_PARAM, _replace_conn_param),
    (_CLI_USER, _replace_cli_user),
    (_CLI_FLAG, _replace_cli_flag),
    (_NETRC, _replace_netrc),
)
_PROSE_WORD_RULES: _WordRules = ((_NAME_ENDINGS, _PROSE, _replace_prose),)


# -- examples and fixtures ----------------------------------------------------------------
#
# Values published in official documentation, split so that this file does not look like
# it holds them. AWS's documented keys end in EXAMPLE and are caught by the marker rule.
_DOCUMENTED_EXAMPLES = (
    "sk_test_4eC39HqLyjWDarjtT1zdp7dc",  # Stripe API reference
    "sk_test_BQokikJOvBiI2HlWgH4olfQ2",  # Stripe docs, earlier
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",  # the signature of jwt.io's sample token
)
# Words that mark a value as made up wherever they stand, in one case (`EXAMPLE`,
# `Example`, `example`); 5+ letters, so that they hardly occur in random text by chance.
_EXAMPLE_MARKERS = re.compile(r"example|sample|dummy|placeholder|notreal", re.IGNORECASE)
# A fixture: only these words, digits and separators (`test1234`, `fake-token-1`).
_FIXTURE = re.compile(
    r"(?:test(?:ing)?|fake|dummy|example|sample|foo|bar|baz|demo|[0-9._-])+", re.I
)
_FIXTURE_WORD = re.compile(r"test|fake|dummy|example|sample|foo|bar|baz|demo", re.IGNORECASE)
_TOKEN_PREFIX = re.compile(
    r"gh[pousr]_|github_pat_|gl[a-z]{2,5}-|xox[a-z]-|xapp-|[rs]k_(?:live|test)_|whsec_"
    r"|sk-(?:(?:proj|ant|svcacct|admin)-)?|AIza|AKIA|ASIA|npm_|pypi-|hf_|SG\.|GOCSPX-|ya29\."
    r"|shp[a-z]{2}_|do[opr]_v1_|django-insecure-"
)
_PEM_ARMOR = re.compile(r"-----[A-Z0-9 ]+-----")
_MIN_FILLER_ENTROPY = 2.0  # bits per character; `aaaa1111`, `xoxoxoxo`
# Hosts that only exist in documentation (RFC 2606, RFC 6761), and this machine's.
_DOC_HOSTS = re.compile(
    r"(?:[\w-]+\.)*example\.(?:com|org|net)|(?:[\w-]+\.)+(?:example|test|invalid)"
)
_LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]", "0.0.0.0", "host.docker.internal"})
_URL_HOST = re.compile(r"[^\s:/?#\"'`<>]*")


def _is_example(kind: str, value: str) -> bool:
    """A documented example, a made-up value or a filler rather than a real secret."""
    if any(doc in value for doc in _DOCUMENTED_EXAMPLES):
        return True
    body = _PEM_ARMOR.sub("", value) if kind == "private_key" else value
    for marker in _EXAMPLE_MARKERS.finditer(body):
        word = marker.group(0)
        if word.islower() or word.isupper() or word.istitle():
            return True
    prefix = _TOKEN_PREFIX.match(body)
    if prefix:
        body = body[prefix.end() :]
    if _FIXTURE.fullmatch(body) and _FIXTURE_WORD.search(body):
        return True
    letters = "".join(c for c in body if c.isalnum())
    return not letters or _entropy(letters) < _MIN_FILLER_ENTROPY


def _is_url_example(m: re.Match[str]) -> bool:
    """Credentials for a documentation host, or a local default (`postgres:postgres@localhost`)."""
    host = _URL_HOST.match(m.string, m.end())
    name = host.group(0).lower() if host else ""
    if _DOC_HOSTS.fullmatch(name):
        return True
    return name in _LOCAL_HOSTS and m.group("user").lower() == m.group("s").lower()


def _is_basic_example(token: str) -> bool:
    """`Basic <base64>` of `user:password` whose password is a placeholder or example."""
    try:
        decoded = base64.b64decode(token, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    user, colon, password = decoded.partition(":")
    if not colon:
        return False
    return (
        _is_placeholder(password)
        or password.lower() == user.lower()
        or _is_example("password", password)
    )


_HINTS = {
    "private_key": "a private key (-----BEGIN … PRIVATE KEY-----, OpenSSH, PuTTY or age)",
    "aws_access_key_id": "an AWS access key id (AKIA…/ASIA…)",
    "aws_secret_access_key": "an AWS secret access key given by name",
    "github_token": "a GitHub token (ghp_…, gho_…, ghs_…, github_pat_…)",
    "gitlab_token": "a GitLab token (glpat-…, glrt-…, …)",
    "slack_token": "a Slack token (xoxb-…, xoxp-…, xapp-…)",
    "slack_webhook": "a Slack webhook URL (hooks.slack.com/services/…)",
    "discord_webhook": "a Discord webhook URL (discord.com/api/webhooks/…)",
    "stripe_key": "a Stripe secret or restricted key (sk_live_…, rk_live_…, sk_test_…)",
    "stripe_webhook_secret": "a Stripe webhook signing secret (whsec_…)",
    "api_key": "an OpenAI or Anthropic API key (sk-…, sk-proj-…, sk-ant-…)",
    "google_api_key": "a Google API key (AIza…)",
    "google_oauth_secret": "a Google OAuth client secret (GOCSPX-…)",
    "google_oauth_token": "a Google OAuth access token (ya29.…)",
    "npm_token": "an npm access token (npm_…)",
    "pypi_token": "a PyPI API token (pypi-AgE…)",
    "huggingface_token": "a Hugging Face token (hf_…)",
    "sendgrid_key": "a SendGrid API key (SG.…)",
    "shopify_token": "a Shopify access token (shpat_…)",
    "digitalocean_token": "a DigitalOcean token (dop_v1_…)",
    "django_secret_key": "a Django secret key (django-insecure-…)",
    "jwt": "a JSON Web Token (eyJ….eyJ….…)",
    "azure_storage_key": "an Azure storage account key (AccountKey=…)",
    "azure_sas_token": "an Azure SAS signature (sig=… in a URL)",
    "connection_string": (
        "a password in a connection URL or string (scheme://user:…@host, Password=…)"
    ),
    "bearer_token": "a bearer token (Authorization: Bearer …)",
    "basic_auth": "basic-auth credentials (Authorization: Basic …, curl -u user:…)",
    "password": "a password value (password=…, 'the … password is …')",
    "secret": "a random-looking value given for a secret, token or key name",
}
