#!/usr/bin/env bash
# The install a user does: build the wheel, install it into a fresh venv (no source
# tree, no editable install), and check that it works on its own — the model, the
# grammars and the MCP SDK come from the wheel and its dependencies.
#     scripts/check_wheel.sh [PYTHON]        (CI runs it after `make test`)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${1:-.venv/bin/python}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$PY" -m build --wheel --outdir "$WORK/dist" . >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; exit 1; }
WHEEL=$(ls "$WORK"/dist/codecompass-*.whl)
echo "built $(basename "$WHEEL") ($(du -k "$WHEEL" | cut -f1) KiB)"
python3 -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q "$WHEEL"
CC="$WORK/venv/bin/codecompass"
cd "$WORK"   # away from the source tree: nothing may come from it
git init -q repo
printf 'def verify_token(token):\n    """Check a session token."""\n    return token == "ok"\n' > repo/auth.py
git -C repo add -A && git -C repo -c user.email=ci@example.com -c user.name=ci commit -qm init
"$CC" index repo --data-dir data --json >/dev/null
"$CC" doctor --data-dir data
"$CC" search "where is the token checked" --data-dir data -k 1 | grep "auth.py:1-3" >/dev/null
echo "wheel OK: installed in a fresh venv, doctor passes, search finds auth.py"
