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

`redact_secrets` replaces high-confidence token shapes (provider prefixes, PEM private
key blocks, JWTs) with `[REDACTED:<kind>]`. It looks for shapes, not entropy, so a
password in a string literal is not caught; the file rules above are the main defence.
"""

from __future__ import annotations

import re

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


# Each pattern starts with a literal so that `re` can jump between candidate positions with a
# fast substring search; a leading `\b` would disable that and cost ~20x. The word-boundary
# check therefore sits just after the prefix, as a lookbehind over it. The private key
# alternative without an END line covers a chunk cut mid-key: it runs to the end of the body.
_SECRET_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        (
            "private_key",
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s:,-]*)",
        ),
        ("aws_access_key_id", r"(?:AKIA|ASIA)(?<!\w....)[0-9A-Z]{16}(?![0-9A-Za-z_])"),
        ("github_token", r"gh[pousr]_(?<!\w....)[A-Za-z0-9]{36,}"),
        ("github_token", r"github_pat_(?<!\w...........)[A-Za-z0-9_]{22,}"),
        ("slack_token", r"xox[baprs]-(?<!\w.....)[A-Za-z0-9-]{10,}"),
        (
            "api_key",
            r"sk-(?<!\w...)(?:[A-Za-z0-9]{20,}|(?:proj|ant|svcacct|admin)-[A-Za-z0-9_-]{20,})",
        ),
        ("google_api_key", r"AIza(?<!\w....)[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"),
        ("jwt", r"eyJ(?<!\w...)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    )
)


def redact_secrets(text: str) -> tuple[str, int]:
    """Replace each high-confidence secret in `text` by `[REDACTED:<kind>]`.

    Returns the new text and the number of replacements.
    """
    total = 0
    for kind, pattern in _SECRET_PATTERNS:
        text, count = pattern.subn(f"[REDACTED:{kind}]", text)
        total += count
    return text, total
