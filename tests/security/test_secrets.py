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
    assert redacted == f'config = {{\n    "value": "[REDACTED:{kind}]",\n}}\n'


def test_private_key_cut_off_before_its_end_line_is_still_redacted() -> None:
    chunk = "key = '''\n" + PRIVATE_KEY.rsplit("\n", 1)[0]

    redacted, count = redact_secrets(chunk)

    assert count == 1
    assert redacted == "key = '''\n[REDACTED:private_key]"


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
