#!/usr/bin/env bash
# Creates (or reuses) the virtual environment the real-authorization-server tests run
# django-oauth-toolkit, the DPoP server, idpyoidc and the Glewlwyd harness from:
# <package root>/.build-oauth-venv, with a migrated template database.
# Idempotent: a stamp holding the checksum of the pins and settings makes a second run a no-op;
# a change of either reinstalls.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
venv="$root/.build-oauth-venv"
stamp="$venv/.requirements.sha256"
# The pins and the settings (whose apps decide the template database's schema).
want="$(cat "$here/requirements.txt" "$here/harness/settings.py" | sha256sum | cut -d' ' -f1)"

# Fast path: installed for these pins, and its interpreter still runs (a removed base Python
# leaves a venv behind that cannot start).
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] \
    && [ -f "$venv/oauth-harness-template.sqlite3" ] \
    && "$venv/bin/python" -c 'import django, oauth2_provider, idpyoidc' 2>/dev/null; then
    exit 0
fi
echo "oauth test server: creating $venv"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --disable-pip-version-check --quiet -r "$here/requirements.txt"
PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" "$here/serve.py" --make-template
echo "$want" > "$stamp"
echo "oauth test server: ready ($(cd "$here" && "$venv/bin/python" -c 'import django, oauth2_provider; print("django", django.get_version(), "django-oauth-toolkit", oauth2_provider.__version__)'))"
