"""`find_secrets`: what a memory may not hold, and the look-alikes it may.

Every fake credential is assembled at run time from a prefix and a seeded random body of
the provider's length and alphabet, so that the values look real to the rules while this
file holds nothing a secret scanner (or GitHub push protection) would flag.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid

import pytest

from codecompass.security.secrets import SecretFinding, find_secrets, redact_secrets

ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "-_"
B64 = ALNUM + "+/"
BASE32 = string.ascii_uppercase + "234567"
DIGITS = string.digits
HEX = "0123456789abcdef"


def rand(seed: str, size: int, alphabet: str = ALNUM) -> str:
    """`size` characters of `alphabet`, the same on every run for the same `seed`."""
    rng = random.Random(seed)
    return "".join(rng.choice(alphabet) for _ in range(size))


def rand_b64(seed: str, size: int) -> str:
    """Standard base64 of `size` seeded random bytes."""
    return base64.b64encode(random.Random(seed).randbytes(size)).decode("ascii")


def b64url(data: dict[str, object]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")


def pem(label: str, seed: str, lines: int) -> str:
    body = rand_b64(seed, 48 * lines)
    wrapped = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    armor = f"{label} " + "KEY-----"
    return f"-----BEGIN {armor}\n{wrapped}\n-----END {armor}"


GH_CLASSIC = "gh" + "p_" + rand("gh-classic", 36)
GH_FINE = "github_" + "pat_" + "11" + rand("gh-fine-1", 20, BASE32) + "_" + rand("gh-fine-2", 59)
AWS_KEY_ID = "AK" + "IA" + rand("aws-id", 16, BASE32)
AWS_SECRET = rand("aws-secret", 40, B64)
RSA_KEY = pem("RSA " + "PRIVATE", "rsa", 20)
OPENSSH_KEY = pem("OPENSSH " + "PRIVATE", "openssh", 6).replace(
    "\n", "\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", 1
)
OPENAI_KEY = "sk-" + "proj-" + rand("openai-1", 58, URLSAFE) + "T3Blbk" + "FJ" + rand("oa2", 58)
ANTHROPIC_KEY = "sk-" + "ant-api03-" + rand("anthropic", 93, URLSAFE) + "AA"
STRIPE_LIVE = "sk_" + "live_" + "51" + rand("stripe-live", 97)
STRIPE_TEST = "sk_" + "test_" + "51" + rand("stripe-test", 97)
JWT = ".".join(
    (
        b64url({"alg": "RS256", "typ": "JWT", "kid": rand("jwt-kid", 12)}),
        b64url({"sub": "svc-billing", "iat": 1717000000, "exp": 1717003600}),
        rand("jwt-sig", 86, URLSAFE),
    )
)
SLACK_BOT = "xox" + "b-" + rand("sl-1", 12, DIGITS) + "-" + rand("sl-2", 13, DIGITS) + "-"
SLACK_BOT += rand("sl-3", 24)
SLACK_APP = "xa" + "pp-1-A0" + rand("xapp-1", 9, BASE32) + "-" + rand("xapp-2", 13, DIGITS)
SLACK_APP += "-" + rand("xapp-3", 64, HEX)
SLACK_HOOK = (
    "https://hooks.slack.com/services/T0"
    + rand("hook-t", 7, BASE32)
    + "/B0"
    + rand("hook-b", 9, BASE32)
    + "/"
    + rand("hook-s", 24)
)
GOOGLE_KEY = "AI" + "za" + rand("google", 35, URLSAFE)
GOOGLE_OAUTH = "GOC" + "SPX-" + rand("gocspx", 28, URLSAFE)
GITLAB_PAT = "gl" + "pat-" + rand("gitlab", 20, URLSAFE)
NPM_TOKEN = "np" + "m_" + rand("npm", 36)
PYPI_TOKEN = "py" + "pi-AgEIcHlwaS5vcmc" + rand("pypi", 120, URLSAFE)
HF_TOKEN = "h" + "f_" + rand("hf", 34)
STRIPE_WHSEC = "wh" + "sec_" + rand("whsec", 32)
SENDGRID = "S" + "G." + rand("sg-1", 22, URLSAFE) + "." + rand("sg-2", 43, URLSAFE)
AZURE_KEY = rand_b64("azure", 64)
AZURE_SIG = rand_b64("sas", 32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
BASIC = base64.b64encode(("deploy:" + rand("basic", 20)).encode()).decode()
BEARER = rand("bearer", 40)
SESSION_SECRET = rand("session", 48)
CLIENT_SECRET = rand("client-secret", 32)
MONGO_PASSWORD = rand("mongo", 16)
DJANGO_KEY = "django-" + "insecure-" + rand("django", 50, ALNUM + "!@#$%^&*(-_=+)")
SERVICE_ACCOUNT_KEY = "-----BEGIN " + "PRIVATE KEY-----\\n" + rand_b64("sa", 60)
SERVICE_ACCOUNT_KEY += "\\n-----END " + "PRIVATE KEY-----\\n"

# (text, kind, line, the secret part that must never be echoed)
SECRETS = [
    pytest.param(
        f"Use token {GH_CLASSIC} for the release bot.",
        "github_token", 1, GH_CLASSIC, id="github-classic-token-in-prose",
    ),
    pytest.param(
        f"CI pushes tags with {GH_FINE} (expires in June).",
        "github_token", 1, GH_FINE, id="github-fine-grained-pat",
    ),
    pytest.param(
        f"Staging IAM user for the uploader: {AWS_KEY_ID}",
        "aws_access_key_id", 1, AWS_KEY_ID, id="aws-access-key-id",
    ),
    pytest.param(
        f"The staging AWS secret access key is {AWS_SECRET}",
        "aws_secret_access_key", 1, AWS_SECRET, id="aws-secret-access-key-in-prose",
    ),
    pytest.param(
        f"Deploy key for the build box:\n\n{RSA_KEY}\n",
        "private_key", 3, RSA_KEY.split("\n")[1], id="pem-rsa-private-key-line-3",
    ),
    pytest.param(
        f"Bastion access:\n{OPENSSH_KEY}",
        "private_key", 2, OPENSSH_KEY.split("\n")[2], id="openssh-private-key-line-2",
    ),
    pytest.param(
        '{"type": "service_account", "private_key": "' + SERVICE_ACCOUNT_KEY + '"}',
        "private_key", 1, SERVICE_ACCOUNT_KEY[40:80], id="service-account-json-private-key",
    ),
    pytest.param(
        "the staging DB password is Tr0ub4dor&3x",
        "password", 1, "Tr0ub4dor&3x", id="prose-password-is",
    ),
    pytest.param(
        "Redis password was changed to 'swordfish42' after the incident.",
        "password", 1, "swordfish42", id="prose-quoted-password-changed-to",
    ),
    pytest.param(
        "The bot's password was changed to `Lq7#rT2vX9` on Monday.",
        "password", 1, "Lq7#rT2vX9", id="prose-backquoted-password",
    ),
    pytest.param(
        "docker run -e POSTGRES_PASSWORD=Hq3!xLm9Zp -p 5432:5432 postgres:16",
        "password", 1, "Hq3!xLm9Zp", id="env-var-password-on-command-line",
    ),
    pytest.param(
        "machine api.github.com login ci-bot password Kp8#vLq2!zR",
        "password", 1, "Kp8#vLq2!zR", id="netrc-line",
    ),
    pytest.param(
        "mysqldump --user root --password 'Hx7$kP2q!m' shop > shop.sql",
        "password", 1, "Hx7$kP2q!m", id="cli-password-flag",
    ),
    pytest.param(
        f"API key: {OPENAI_KEY}", "api_key", 1, OPENAI_KEY, id="openai-project-key",
    ),
    pytest.param(
        f"Fix: evals failed because ANTHROPIC_API_KEY was unset; ours is {ANTHROPIC_KEY}",
        "api_key", 1, ANTHROPIC_KEY, id="anthropic-key",
    ),
    pytest.param(
        "connect with postgres://admin:S3cr3t!@db.internal:5432/app",
        "connection_string", 1, "S3cr3t!", id="postgres-url-password",
    ),
    pytest.param(
        f"Prod reads mongodb+srv://svc-orders:{MONGO_PASSWORD}@cluster0.ab1cd.mongodb.net/prod",
        "connection_string", 1, MONGO_PASSWORD, id="mongodb-srv-url-password",
    ),
    pytest.param(
        "jdbc:mysql://db.internal:3306/app?user=app&passwd=Xk9#mPq2vL&useSSL=true",
        "connection_string", 1, "Xk9#mPq2vL", id="jdbc-url-passwd-parameter",
    ),
    pytest.param(
        "Server=tcp:sql-prod.internal,1433;Database=orders;User ID=svc_orders;"
        "Password=Q7v!pL2x#Rw;Encrypt=true",
        "connection_string", 1, "Q7v!pL2x#Rw", id="ado-net-connection-string",
    ),
    pytest.param(
        "DefaultEndpointsProtocol=https;AccountName=shopprod;AccountKey="
        f"{AZURE_KEY};EndpointSuffix=core.windows.net",
        "azure_storage_key", 1, AZURE_KEY, id="azure-storage-connection-string",
    ),
    pytest.param(
        "Exports come from https://shopprod.blob.core.windows.net/exports/day.csv?sv=2022-11-02"
        f"&ss=b&srt=o&sp=r&se=2025-01-01T00:00:00Z&sig={AZURE_SIG}",
        "azure_sas_token", 1, AZURE_SIG, id="azure-sas-url",
    ),
    pytest.param(
        f"export STRIPE_SECRET_KEY={STRIPE_LIVE}",
        "stripe_key", 1, STRIPE_LIVE, id="stripe-live-key-export",
    ),
    pytest.param(
        # Not a placeholder: a test-mode key reads and writes the account's test data.
        f"Sandbox checkout runs with {STRIPE_TEST}",
        "stripe_key", 1, STRIPE_TEST, id="stripe-test-mode-key",
    ),
    pytest.param(
        f"Webhook endpoint verifies with {STRIPE_WHSEC}",
        "stripe_webhook_secret", 1, STRIPE_WHSEC, id="stripe-webhook-secret",
    ),
    pytest.param(
        f"Repro: curl -H 'Authorization: Bearer {JWT}' https://api.internal/v2/jobs",
        "jwt", 1, JWT, id="jwt-in-bearer-header",
    ),
    pytest.param(
        f"curl -H 'Authorization: Bearer {BEARER}' https://api.internal/v2/jobs",
        "bearer_token", 1, BEARER, id="opaque-bearer-token",
    ),
    pytest.param(
        f"Nexus wants Authorization: Basic {BASIC}",
        "basic_auth", 1, BASIC, id="basic-auth-header",
    ),
    pytest.param(
        "curl -u admin:Zq8!vN3pLx https://ci.internal/api/json",
        "basic_auth", 1, "Zq8!vN3pLx", id="curl-user-password",
    ),
    pytest.param(
        f"Alerts bot: {SLACK_BOT}", "slack_token", 1, SLACK_BOT, id="slack-bot-token",
    ),
    pytest.param(
        f"Socket mode needs the app token {SLACK_APP}",
        "slack_token", 1, SLACK_APP, id="slack-app-token",
    ),
    pytest.param(
        f"Alerts post to {SLACK_HOOK}",
        "slack_webhook", 1, SLACK_HOOK.rsplit("/", 1)[1], id="slack-webhook-url",
    ),
    pytest.param(
        f"Maps widget key {GOOGLE_KEY}", "google_api_key", 1, GOOGLE_KEY, id="google-api-key",
    ),
    pytest.param(
        f"OAuth app uses client secret {GOOGLE_OAUTH}",
        "google_oauth_secret", 1, GOOGLE_OAUTH, id="google-oauth-client-secret",
    ),
    pytest.param(
        f"The OAuth client secret for staging is {CLIENT_SECRET}",
        "secret", 1, CLIENT_SECRET, id="random-client-secret-in-prose",
    ),
    pytest.param(
        f"Renovate uses {GITLAB_PAT}", "gitlab_token", 1, GITLAB_PAT, id="gitlab-pat",
    ),
    pytest.param(
        f"//registry.npmjs.org/:_authToken={NPM_TOKEN}",
        "npm_token", 1, NPM_TOKEN, id="npm-token-npmrc-line",
    ),
    pytest.param(
        f"twine upload with password {PYPI_TOKEN}",
        "pypi_token", 1, PYPI_TOKEN, id="pypi-token",
    ),
    pytest.param(
        f"Model pulls need {HF_TOKEN}", "huggingface_token", 1, HF_TOKEN, id="huggingface-token",
    ),
    pytest.param(
        f"Mail goes through SendGrid with {SENDGRID}",
        "sendgrid_key", 1, SENDGRID, id="sendgrid-key",
    ),
    pytest.param(
        f"SESSION_SECRET={SESSION_SECRET}", "secret", 1, SESSION_SECRET, id="dotenv-random-secret",
    ),
    pytest.param(
        f"Old settings had SECRET_KEY = '{DJANGO_KEY}'",
        "django_secret_key", 1, DJANGO_KEY, id="django-insecure-key",
    ),
    pytest.param(
        f"Decision: queue uses advisory locks.\nTemporary creds: {AWS_KEY_ID}\nRemove by Friday.",
        "aws_access_key_id", 2, AWS_KEY_ID, id="secret-on-line-2-of-a-note",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("text", "kind", "line", "secret"), SECRETS)
def test_secret_is_found_once_with_its_kind_and_line(
    text: str, kind: str, line: int, secret: str
) -> None:
    findings = find_secrets(text)

    assert [(f.kind, f.line) for f in findings] == [(kind, line)]


@pytest.mark.parametrize(("text", "kind", "line", "secret"), SECRETS)
def test_finding_never_echoes_the_secret(text: str, kind: str, line: int, secret: str) -> None:
    findings = find_secrets(text)

    assert findings
    for finding in findings:
        assert secret not in finding.hint
        assert secret not in repr(finding)
        assert secret[-8:] not in repr(finding)  # nor its end, nor a piece of it
        assert finding.hint and not finding.hint.startswith("[")


def test_finding_is_a_frozen_record() -> None:
    finding = find_secrets(f"token {GH_CLASSIC}")[0]

    assert finding == SecretFinding("github_token", 1, finding.hint)
    with pytest.raises(AttributeError):
        finding.line = 2  # type: ignore[misc]


def test_several_secrets_are_listed_in_line_order() -> None:
    text = f"db: postgres://app:{MONGO_PASSWORD}@db.internal/app\nbot: {GH_CLASSIC}\n"

    assert [(f.kind, f.line) for f in find_secrets(text)] == [
        ("connection_string", 1),
        ("github_token", 2),
    ]


# Documented examples, kept on purpose: AWS documents these two in every SDK guide.
AWS_DOC_KEY_ID = "AKIA" + "IOSFODNN7EXAMPLE"
AWS_DOC_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
STRIPE_DOC_KEY = "sk_" + "test_4eC39HqLyjWDarjtT1zdp7dc"
JWT_IO_SAMPLE = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9."
    "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ."
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PUBLIC_PEM = pem("PUBLIC", "public", 3)
SSH_PUBLIC = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + rand("ed25519", 43, B64) + " ci@build"
GIT_SHA = hashlib.sha1(b"commit a").hexdigest()
SHA256 = hashlib.sha256(b"wheel").hexdigest()
BLAKE3_LIKE = hashlib.blake2s(b"chunk").hexdigest()  # same 64-hex-character shape
UUID = str(uuid.UUID(int=random.Random("uuid").getrandbits(128), version=4))
FIXTURE_B64 = base64.b64encode(b'{"user": "alice", "roles": ["viewer"]}').decode()

LOOK_ALIKES = [
    pytest.param(f"Regression introduced in {GIT_SHA}, reverted in {GIT_SHA[:7]}", id="git-sha"),
    pytest.param(f"sha256 of the wheel: {SHA256}", id="sha256-digest"),
    pytest.param(f"BLAKE3 of chunk 12 is {BLAKE3_LIKE}", id="blake3-digest"),
    pytest.param(f"the cache key is sha256:{SHA256}", id="cache-key-is-a-digest"),
    pytest.param(f"Job {UUID} failed on retry", id="uuid"),
    pytest.param(f'EXPECTED_BODY = "{FIXTURE_B64}"  # test constant', id="base64-test-constant"),
    pytest.param(f"AWS docs use {AWS_DOC_KEY_ID} in examples", id="aws-documented-key-id"),
    pytest.param(f"aws_secret_access_key = {AWS_DOC_SECRET}", id="aws-documented-secret"),
    pytest.param(f"Stripe's API reference shows {STRIPE_DOC_KEY}", id="stripe-documented-key"),
    pytest.param(f"jwt.io's sample token is {JWT_IO_SAMPLE}", id="jwt-io-sample"),
    pytest.param("password=<your password>", id="angle-bracket-placeholder"),
    pytest.param("token: ${GITHUB_TOKEN}", id="env-template"),
    pytest.param("API_KEY=changeme", id="changeme"),
    pytest.param("password: xxxx", id="xxxx"),
    pytest.param("GITHUB_TOKEN=gh" + "p_" + "x" * 36, id="token-prefix-with-filler"),
    pytest.param("the test password is test1234", id="fixture-password"),
    pytest.param("fixtures sign with sk_" + "live_" + "fake" * 6, id="fixture-token-body"),
    pytest.param("rotate the password monthly", id="talk-rotate-password"),
    pytest.param("the token is checked in verify_token", id="talk-token-checked"),
    pytest.param("we store the API key in Vault", id="talk-api-key-in-vault"),
    pytest.param("password hashing uses argon2id", id="talk-password-hashing"),
    pytest.param("the deploy token is in Vault at ci/deploy", id="talk-where-token-lives"),
    pytest.param("password is required when SSO is disabled", id="talk-password-required"),
    pytest.param("the session token is valid for 15 minutes", id="talk-token-lifetime"),
    pytest.param("signing key is rotated every 90 days", id="talk-key-rotation"),
    pytest.param("password policy: min 12 chars, no reuse of last 5", id="talk-password-policy"),
    pytest.param("the primary key is (tenant_id, id)", id="primary-key"),
    pytest.param("token = sha256(user_id + salt)", id="token-computed-in-code"),
    pytest.param("Bearer tokens are rejected after logout", id="talk-bearer"),
    pytest.param("docker login --password-stdin reads from the pipe", id="password-stdin-flag"),
    pytest.param("https://api.github.com/repos/org/app/pulls?state=open&page=2", id="plain-url"),
    pytest.param("DATABASE_URL=postgres://localhost/app", id="url-without-credentials"),
    pytest.param("local dev: postgres://postgres:postgres@localhost:5432/app", id="local-default"),
    pytest.param("see https://user:hunter22@example.com/login in the RFC", id="doc-host-url"),
    pytest.param("curl -u admin:admin http://localhost:8080/api", id="curl-local-default"),
    pytest.param("Authorization: Basic dXNlcm5hbWU6cGFzc3dvcmQ=", id="basic-username-password"),
    pytest.param("set OPENAI_API_KEY before running evals", id="env-var-name-alone"),
    pytest.param("the key is OPENAI_API_KEY, not ANTHROPIC_API_KEY", id="env-var-name-as-value"),
    pytest.param("test_token_refresh_rejects_expired_tokens covers the 401", id="long-identifier"),
    pytest.param("brand color is #ff5733; hover #FF5733CC", id="css-hex-color"),
    pytest.param("bumped requests to 2.32.3; the token lib is v1.4.0", id="semantic-version"),
    pytest.param("config/secrets.yaml is gitignored", id="path-named-secret"),
    pytest.param("the secret is in deploy/k8s/secrets/prod-db.yaml", id="path-as-value"),
    pytest.param(f"CI deploy public key: {SSH_PUBLIC}", id="ssh-public-key"),
    pytest.param(f"Verify with:\n{PUBLIC_PEM}", id="pem-public-key"),
    pytest.param("Checkout uses pk_" + "live_" + rand("pk", 24), id="stripe-publishable-key"),
    pytest.param("Stripe webhook secret is stored as STRIPE_WEBHOOK_SECRET", id="secret-name-only"),
    pytest.param(
        "the AWS secret: arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-Ab3dEf",
        id="secrets-manager-arn",
    ),
]  # fmt: skip


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alike_is_not_a_secret(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(("text", "kind", "line", "secret"), SECRETS)
def test_redaction_and_finding_share_their_rules(
    text: str, kind: str, line: int, secret: str
) -> None:
    # Every secret the code rules know is blanked by `redact_secrets` as well; the
    # memory-only rules (prose, connection strings, command lines) are `find_secrets`'.
    redacted, count = redact_secrets(text)

    assert count <= 1
    if count:
        assert secret not in redacted
