#!/usr/bin/env bash
# Writes the golden vaults of this release with its CLI: Tests/GoldenVaults/<version>/<name>/.
# Run once per release (the directories are committed, never regenerated for an old version):
#   swift build --product sessionvault --product VaultTestHost
#   scripts/make-golden-vaults.sh .build/debug/sessionvault 0.1.0
# Each vault is written at a fixed time (2027-01-15T08:00:00Z) from the CLI tests' GoTrue fixture.
set -euo pipefail
CLI="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
VERSION="$2"
cd "$(dirname "$0")/.."
OUT="Tests/GoldenVaults/$VERSION"
if [ -e "$OUT" ]; then echo "$OUT exists: golden vaults are never rewritten" >&2; exit 1; fi
NOW=2027-01-15T08:00:00Z
RESPONSE='{"access_token":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEyMyIsImlzcyI6Imh0dHBzOi8vcHJvamVjdC5zdXBhYmFzZS5jby9hdXRoL3YxIn0.GOLDENACCESSTOKEN","token_type":"bearer","expires_in":3600,"expires_at":1800003600,"refresh_token":"v1.GOLDENREFRESHTOKEN-1","user":{"id":"user-123","email":"mentor@example.org","role":"authenticated","app_metadata":{"provider":"email","roles":["peer_mentor"],"tenant_id":"tenant-9"},"user_metadata":{"full_name":"Kari Nordmann"}}}'

make_vault() { # name, import flags...
    local dir="$OUT/$1"; shift
    mkdir -p "$dir"
    echo "$RESPONSE" | "$CLI" import --vault "$dir/vault.db" --key-file "$dir/vault.key" --now "$NOW" "$@" >/dev/null
}

make_vault signed-in-biometric --biometric
make_vault signed-out
"$CLI" logout --vault "$OUT/signed-out/vault.db" --key-file "$OUT/signed-out/vault.key" --now "$NOW" >/dev/null

# A recovery wipe as an app meets it: page 1 damaged, ResumeManager.resume() (VaultTestHost, built
# beside the CLI) wipes the vault and its key and leaves a tombstone; the next open makes a fresh vault with a
# new key that records why it is empty (the next open, `VaultTestHost open-create`). The refresh URL is never contacted on this path.
make_vault after-recovery-wipe
printf '\xff' | dd of="$OUT/after-recovery-wipe/vault.db" bs=1 seek=1000 conv=notrunc status=none
HOST="$(dirname "$CLI")/VaultTestHost"
"$HOST" resume "$OUT/after-recovery-wipe/vault.db" "$OUT/after-recovery-wipe/vault.key" http://127.0.0.1:9
"$HOST" open-create "$OUT/after-recovery-wipe/vault.db" "$OUT/after-recovery-wipe/vault.key"
for dir in "$OUT"/*/; do
    # The CLI closes the vault, which checkpoints and removes the log: a log left holds data.
    if [ -s "${dir}vault.db-wal" ]; then echo "$dir was not checkpointed" >&2; exit 1; fi
    rm -f "${dir}vault.db-shm" "${dir}vault.db-wal" "${dir}vault.db-lock" "${dir}vault.db-refresh.lock"
done
ls -la "$OUT"/*
