"""Secret-file rules and in-text redaction."""

from __future__ import annotations

import pytest

from codecompass.security.secrets import is_secret_path, redact_secrets

SECRET_PATHS = [
    ".env",
    "app/.env",
    ".env.local",
    ".env.production",
    ".ENV",
    "docker/prod.env",
    ".envrc",
    "certs/server.pem",
    "tls/private.key",
    "keys/client.p12",
    "keys/client.pfx",
    "android/release.keystore",
    "java/store.jks",
    "putty/me.ppk",
    "id_rsa",
    "home/.ssh/id_rsa",
    "id_rsa_backup",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_ed25519_sk",
    ".npmrc",
    "frontend/.npmrc",
    ".pypirc",
    ".netrc",
    "_netrc",
    ".git-credentials",
    ".pgpass",
    "credentials",
    ".aws/credentials",
    "credentials.json",
    "gcp/prod.credentials",
    "secrets.yaml",
    "config/secrets.yml",
    "secrets.json",
    "secrets.toml",
    "Secrets.ini",
    "web/.htpasswd",
    "service-account.json",
    "gcp/service-account-prod.json",
    "service_account_key.json",
    "infra/terraform.tfstate",
    "infra/terraform.tfstate.backup",
]

NOT_SECRET_PATHS = [
    ".env.example",
    ".env.sample",
    ".env.template",
    ".env.dist",
    ".env.local.example",
    "example.env",
    "environment.py",
    "src/env.py",
    ".envoy/config.yaml",
    "id_rsa.pub",
    ".ssh/id_ed25519.pub",
    "src/codecompass/security/secrets.py",
    "secrets.md",
    "secrets",
    "docs/credentials.md",
    "credentials_test.py",
    "keyboard.py",
    "monkey.py",
    "src/key.py",
    "service-account.md",
    "terraform/main.tf",
    "npmrc.md",
    "README.md",
    "",
]


@pytest.mark.parametrize("path", SECRET_PATHS)
def test_secret_paths(path: str) -> None:
    assert is_secret_path(path) is True


@pytest.mark.parametrize("path", NOT_SECRET_PATHS)
def test_not_secret_paths(path: str) -> None:
    assert is_secret_path(path) is False


PRIVATE_KEY = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\n"
    "aFDrBz9vFqU4yN3BkLhDqFjM5HFf1a9xP1yUQ0lVJz1o2Q==\n"
    "-----END RSA PRIVATE KEY-----"
)

# Built from pieces so that this file itself does not look like it holds live tokens.
GITHUB_TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" * 2
GITHUB_PAT = "github_pat_" + "11ABCDEFG0" * 4
SLACK_TOKEN = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOp"
OPENAI_KEY = "sk-" + "A1b2C3d4E5f6G7h8I9j0K1l2"
OPENAI_PROJECT_KEY = "sk-proj-" + "Ab3_dE5-gH7iJ9kL1mN3oP5q"
GOOGLE_KEY = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)


@pytest.mark.parametrize(
    ("secret", "kind"),
    [
        (PRIVATE_KEY, "private_key"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH "
         "PRIVATE KEY-----", "private_key"),
        ("AKIAIOSFODNN7EXAMPLE", "aws_access_key_id"),
        ("ASIAY34FZKBOKMUTVV7A", "aws_access_key_id"),
        (GITHUB_TOKEN, "github_token"),
        ("gho_" + "x" * 36, "github_token"),
        (GITHUB_PAT, "github_token"),
        (SLACK_TOKEN, "slack_token"),
        (OPENAI_KEY, "api_key"),
        (OPENAI_PROJECT_KEY, "api_key"),
        (GOOGLE_KEY, "google_api_key"),
        (JWT, "jwt"),
    ],
)  # fmt: skip
def test_each_pattern_is_redacted_in_context(secret: str, kind: str) -> None:
    text = f'config = {{\n    "value": "{secret}",\n}}\n'

    redacted, count = redact_secrets(text)

    assert count == 1
    newlines = "\n" * secret.count("\n")  # kept, so that line numbers hold
    assert redacted == f'config = {{\n    "value": "[REDACTED:{kind}]{newlines}",\n}}\n'


def test_private_key_cut_off_before_its_end_line_is_still_redacted() -> None:
    chunk = "key = '''\n" + PRIVATE_KEY.rsplit("\n", 1)[0]

    redacted, count = redact_secrets(chunk)

    assert count == 1
    assert redacted == "key = '''\n[REDACTED:private_key]\n\n"


def test_several_secrets_are_all_counted() -> None:
    text = f"AWS={'AKIAIOSFODNN7EXAMPLE'}\nGH={GITHUB_TOKEN}\nGH2={GITHUB_TOKEN}\n"

    redacted, count = redact_secrets(text)

    assert count == 3
    assert redacted == (
        "AWS=[REDACTED:aws_access_key_id]\n"
        "GH=[REDACTED:github_token]\nGH2=[REDACTED:github_token]\n"
    )


@pytest.mark.parametrize(
    "text",
    [
        "sk = key_list[0]",
        "task-runner-with-a-very-long-name = 1",
        "sk-learn-style-kebab-case-identifier",
        "mask = 'sk-short'",
        "AKIA_PREFIX = 'AKIA'",
        "prefix = 'AKIAIOSFODNN7EXAMPL'",
        "glued = 'xAKIAIOSFODNN7EXAMPLE'",
        "task-A1b2C3d4E5f6G7h8I9j0K1l2 = 1",
        "bigh" + "p_" + "a" * 40,
        "ghp_ = 'ghp_tooShort'",
        "eyJ = base64('{\"a\": 1}')",
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0D\n-----END PUBLIC KEY-----",
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----",
        "def redact(text: str) -> str:\n    return text.replace('xox', '')\n",
        "",
    ],
)
def test_ordinary_text_is_untouched(text: str) -> None:
    assert redact_secrets(text) == (text, 0)


# -- rules beyond token prefixes (issue 13, defect 12) ---------------------------------

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
DJANGO_KEY = "django-insecure-" + "8l#k2$z!q9x@v^m3w&p7r*t0y+u"
RANDOM_50 = "t7&h^2k!m9p$q4@w8z#x1c(v5b)n3-l6_j0=g+f*d" + "Q8e%R2u!Y"
STRIPE_LIVE = "sk_" + "live_4eC39HqLyjWDarjtT1zdp7dc"
HEX_32 = "a9f8e7d6c5b4a3f2" + "e1d0c9b8a7f6e5d4"
BEARER = "abcDEF123456" + "ghiJKL789mno"

REDACTED = [
    # AWS secret access keys, by name, in Python, YAML, a call and JS.
    (
        f'aws_secret_access_key = "{AWS_SECRET}"',
        'aws_secret_access_key = "[REDACTED:aws_secret_access_key]"',
    ),
    (
        f"AWS_SECRET_ACCESS_KEY: {AWS_SECRET}",
        "AWS_SECRET_ACCESS_KEY: [REDACTED:aws_secret_access_key]",
    ),
    (
        f's3 = boto3.client("s3", aws_secret_access_key="{AWS_SECRET}")',
        's3 = boto3.client("s3", aws_secret_access_key="[REDACTED:aws_secret_access_key]")',
    ),
    (f'  secretAccessKey: "{AWS_SECRET}",', '  secretAccessKey: "[REDACTED:secret]",'),
    # Django keys: the insecure shape anywhere, any random string as SECRET_KEY.
    (f"SECRET_KEY = '{DJANGO_KEY}'", "SECRET_KEY = '[REDACTED:django_secret_key]'"),
    (f"key = '{DJANGO_KEY}'", "key = '[REDACTED:django_secret_key]'"),
    (f"SECRET_KEY = '{RANDOM_50}'", "SECRET_KEY = '[REDACTED:secret]'"),
    (f"SECRET_KEY={RANDOM_50}", "SECRET_KEY=[REDACTED:secret]"),
    # Database passwords: in URLs of any scheme, and by name in every syntax.
    (
        'DATABASE_URL = "postgres://user:hunter2pass@db:5432/app"',
        'DATABASE_URL = "postgres://user:[REDACTED:password]@db:5432/app"',
    ),
    (
        "url: mysql+pymysql://root:s3cr3t@localhost/app",
        "url: mysql+pymysql://root:[REDACTED:password]@localhost/app",
    ),
    (
        "REDIS_URL=redis://:hunter2pass@cache:6379/0",
        "REDIS_URL=redis://:[REDACTED:password]@cache:6379/0",
    ),
    ('PASSWORD = "hunter2"', 'PASSWORD = "[REDACTED:password]"'),
    ('password = "supersecret"', 'password = "[REDACTED:password]"'),
    ("DB_PASSWORD=hunter2pass", "DB_PASSWORD=[REDACTED:password]"),
    ("export PGPASSWORD='hunter2pass'", "export PGPASSWORD='[REDACTED:password]'"),
    ("  - POSTGRES_PASSWORD=hunter2pass", "  - POSTGRES_PASSWORD=[REDACTED:password]"),
    ("  password: hunter2pass  # prod", "  password: [REDACTED:password]  # prod"),
    ('  "password": "hunter2pass",', '  "password": "[REDACTED:password]",'),
    ("        'PASSWORD': 'hunter2pass',", "        'PASSWORD': '[REDACTED:password]',"),
    ('password := "hunter2pass"', 'password := "[REDACTED:password]"'),
    ('\tPassword: "hunter2pass",', '\tPassword: "[REDACTED:password]",'),
    ("'db_pass' => 'hunter2pass',", "'db_pass' => '[REDACTED:password]',"),
    ("spring.datasource.password=hunter2pass", "spring.datasource.password=[REDACTED:password]"),
    ('password = "hunter2pass"  # TOML', 'password = "[REDACTED:password]"  # TOML'),
    (
        'conn = psycopg2.connect(host="db", password="hunter2pass")',
        'conn = psycopg2.connect(host="db", password="[REDACTED:password]")',
    ),
    ('    db_password: str = "hunter2pass"', '    db_password: str = "[REDACTED:password]"'),
    ('if password == "letmein99":', 'if password == "[REDACTED:password]":'),
    ("zf.open('a.txt', pwd='python')", "zf.open('a.txt', pwd='[REDACTED:password]')"),
    # Stripe keys and webhook secrets.
    (f'stripe.api_key = "{STRIPE_LIVE}"', 'stripe.api_key = "[REDACTED:stripe_key]"'),
    ("key = 'rk_" + "live_4eC39HqLyjWDarjtT1zdp7dc'", "key = '[REDACTED:stripe_key]'"),
    ("key = 'sk_" + "test_4eC39HqLyjWDarjtT1zdp7dc'", "key = '[REDACTED:stripe_key]'"),
    (
        "WEBHOOK = 'whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'",
        "WEBHOOK = '[REDACTED:stripe_webhook_secret]'",
    ),
    # Other providers.
    (
        "url = 'https://hooks.slack.com/services/T024BE7LD/B01ABCDEF12/" + "Xy9zAb3Cd5Ef7Gh9Ij'",
        "url = 'https://hooks.slack.com/services/[REDACTED:slack_webhook]'",
    ),
    (
        "hook = 'https://discord.com/api/webhooks/123456789012345678/" + "AbCdEf_GhIjKlMnOpQrStUv'",
        "hook = 'https://discord.com/api/webhooks/[REDACTED:discord_webhook]'",
    ),
    ("token = 'glpat-" + "xYz12AbC34dEf56GhI78'", "token = '[REDACTED:gitlab_token]'"),
    (
        "//registry.npmjs.org/:_authToken=npm_" + "a" * 36,
        "//registry.npmjs.org/:_authToken=[REDACTED:npm_token]",
    ),
    ("password = pypi-AgEIcHlwaS5vcmc" + "A1b2C3d4E5" * 5, "password = [REDACTED:pypi_token]"),
    ("HF = 'hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz01234567'", "HF = '[REDACTED:huggingface_token]'"),
    (
        "SG.abcdefghijklmnopqrstuv." + "A" * 43,
        "[REDACTED:sendgrid_key]",
    ),
    (
        "DefaultEndpointsProtocol=https;AccountName=shop;AccountKey=" + "Zm9vYmFy" * 8 + "==;",
        "DefaultEndpointsProtocol=https;AccountName=shop;AccountKey=[REDACTED:azure_storage_key];",
    ),
    # Authorization headers.
    (
        f'headers = {{"Authorization": "Bearer {BEARER}"}}',
        'headers = {"Authorization": "Bearer [REDACTED:bearer_token]"}',
    ),
    (
        f"curl -H 'Authorization: bearer {BEARER}' $URL",
        "curl -H 'Authorization: bearer [REDACTED:bearer_token]' $URL",
    ),
    ("Authorization: Basic dXNlcm5hbWU6cGFzc3dvcmQ=", "Authorization: Basic [REDACTED:basic_auth]"),
    # Random values assigned to secret names.
    (f'const apiKey = "{HEX_32}";', 'const apiKey = "[REDACTED:secret]";'),
    (f"API_TOKEN={HEX_32}", "API_TOKEN=[REDACTED:secret]"),
    ('  client_secret: "Qw3rTy7UiOp1AsDf9GhJk2Lz"', '  client_secret: "[REDACTED:secret]"'),
    ('GITHUB_WEBHOOK_SECRET = "Kx9mP2vL8nQ4wR7t"', 'GITHUB_WEBHOOK_SECRET = "[REDACTED:secret]"'),
    ('headers["X-Api-Key"] = "K7xP2mQ9vL4nR8tZ3wY6"', 'headers["X-Api-Key"] = "[REDACTED:secret]"'),
    (
        'client_secret = "8f14e45f-ceea-467a-9a36-dedd4bea2543"',  # a UUID, but a secret one
        'client_secret = "[REDACTED:secret]"',
    ),
    (
        'PRIVATE_KEY = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"',
        'PRIVATE_KEY = "[REDACTED:secret]"',
    ),
]


@pytest.mark.parametrize(("text", "expected"), REDACTED)
def test_secret_is_redacted(text: str, expected: str) -> None:
    assert redact_secrets(text) == (expected, 1)


NOT_REDACTED = [
    # Placeholders and empty values.
    'password = ""',
    "password = ''",
    'password = "changeme"',
    'password = "<password>"',
    'password = "xxx"',
    'password = "********"',
    'password = "your-password-here"',
    'PASSWORD = "password"',
    "password: ${DB_PASSWORD}",
    'password: "{{ .Values.db.password }}"',
    "password = %(db_password)s",
    "DB_PASSWORD=",
    'api_key = "YOUR_API_KEY"',
    'SECRET_KEY = "[REDACTED:secret]"',
    # Values read from elsewhere: code, not literals.
    "password = None",
    'password = os.environ["DB_PASSWORD"]',
    'password = os.getenv("DB_PASSWORD", "")',
    'token = os.environ["TOKEN"]',
    "api_key = settings.API_KEY",
    "password = pw_from_env",
    "  password: process.env.DB_PASSWORD,",
    "token = _SEND_MESSAGE_TOKEN",
    "private_key: PKCS7PrivateKeyTypes,",
    "connect(password=user_password, timeout=5)",
    "NTE_INCORRECT_PASSWORD: Final = -2146893773",
    # Type annotations and signatures.
    "password: str",
    "    password: Optional[str] = None",
    'def login(username: str, password: str = "") -> None:',
    "  password?: string;",
    # URLs whose "password" is a template or a placeholder.
    'url = f"postgres://{user}:{password}@{host}/db"',
    '"%s://%s:%s@%s" % (scheme, user, password, host)',
    "DATABASE_URL=postgres://user:password@localhost/app",
    'url = "postgres://user:${DB_PASSWORD}@db/app"',
    "https://example.com:8080/path@v2",
    "git@github.com:org/repo.git",
    # Names that hold no secret.
    'bos_token = "<s>"',
    'pad_token = "[PAD]"',
    'token_type = "bearer"',
    'token = "access_token"',
    '"refresh_token": "hf_oauth__refresh_token",',
    'CSRF_TOKEN_HEADER = "X-CSRFToken"',
    'cache_key = "user_profile_cache"',
    f'key = "{HEX_32}"',
    "sort(key=lambda item: item[1])",
    'publicKeyToken="1fc8b3b9a1e18e3b"',
    '"forgotPassword": "Forgot your password?",',
    '"new_password": "new_password",',
    'PASSWORD_FIELD = "password"',
    'password_hash = "pbkdf2_sha256$600000$abc$def"',
    'compass = "hunter2pass"',
    "'pass': 'bandpass',",
    '"AWS::ApiGateway::ApiKey": "48205d4ffd7feba3",',
    'pwd = "/home/user/project"',
    'token = r"[-!#$%&\'*+.^_`|~0-9a-zA-Z]+"',
    'PASSWORD = "short"',
    'secret = "Kx9mP2vL"',  # too short to be a generated secret
    # UUIDs and hashes that are not assigned to a secret name (lockfiles, ids).
    'request_id = "8f14e45f-ceea-467a-9a36-dedd4bea2543"',
    '"integrity": "sha512-V5Vs8EQ5qd5Jx2CwWnWqNqVt0z0wQ2n1X3Q0VcdE8xsPm0r4j1C6R0sT3vW5yZ8aA==",',
    'hash = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"',
    'content-hash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"',
    # Prose.
    "Bearer tokens are sent in the Authorization header.",
    "This client uses HTTP Basic authentication.",
    "Pass the token to `connect` as a keyword argument.",
    "-----BEGIN RSA PRIVATE KEY-----",
    'PEM_START = b"-----BEGIN OPENSSH PRIVATE KEY-----"',
]


@pytest.mark.parametrize("text", NOT_REDACTED)
def test_placeholders_lookups_and_ordinary_code_are_untouched(text: str) -> None:
    assert redact_secrets(text) == (text, 0)


def test_code_between_private_key_markers_is_not_a_key() -> None:
    code = (
        'BEGIN = "-----BEGIN RSA PRIVATE KEY-----"\n'
        "def split(text):\n"
        "    return text.split(BEGIN)\n"
        'END = "-----END RSA PRIVATE KEY-----"\n'
    )
    assert redact_secrets(code) == (code, 0)


def test_private_key_in_a_json_string_is_redacted() -> None:
    text = (
        '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n'
        'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n", "x": 1}'
    )
    assert redact_secrets(text) == (
        '{"type": "service_account", "private_key": "[REDACTED:private_key]\\n", "x": 1}',
        1,
    )


def test_redaction_keeps_lines_and_is_idempotent() -> None:
    text = "\n".join(
        [*(sample for sample, _ in REDACTED), PRIVATE_KEY, "def after():\n    return 1"]
    )

    redacted, count = redact_secrets(text)

    assert count == len(REDACTED) + 1
    assert redacted.count("\n") == text.count("\n")
    assert redacted.split("\n")[-2:] == ["def after():", "    return 1"]
    assert redact_secrets(redacted) == (redacted, 0)


def test_non_ascii_text_keeps_positions() -> None:
    # A character that grows when lowered (U+0130) and one outside Latin-1 before secrets.
    text = 'İ → ok\npassword = "hunter2pass"\n名前 = 1; token = "' + HEX_32 + '"\n'
    assert redact_secrets(text) == (
        'İ → ok\npassword = "[REDACTED:password]"\n名前 = 1; token = "[REDACTED:secret]"\n',
        2,
    )
