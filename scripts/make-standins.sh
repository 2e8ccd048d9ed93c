#!/usr/bin/env bash
# The stand-in leg's packages (`make test-standins`): local git repositories named and
# shaped like the two packages the manifest's Apple branch declares, wrapping Debian's libraries
# through pkg-config instead of XCFrameworks (which cannot link on Linux):
#
#   sqlcipher/SQLCipher.swift  package SQLCipher, product and module SQLCipher, tag 4.15.0; its
#                              header is SQLCipher's and, like the real package's, leaves
#                              SQLITE_HAS_CODEC to the importer (so a missing define fails here too)
#   jedisct1/swift-sodium      package Sodium, product and module Clibsodium, tag 0.10.0
#
# Then a SwiftPM mirror for each URL, in the given configuration directory only (passed to every
# swift command of the leg with --config-path): nothing is written to the package's own
# .swiftpm, ~/.swiftpm or git's configuration, so the default build never sees the mirrors.
#
#   make-standins.sh <dir>     repositories in <dir>/packages, mirrors in <dir>/config
set -euo pipefail
[ $# = 1 ] || { echo "usage: $0 <dir>"; exit 64; }
dir="$1"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
packages="$dir/packages"
config="$dir/config"

# One repository, rewritten from scratch each run (a few files): <name> <tag> then the files as
# path=content pairs on stdin, separated by lines "--- path".
make_repository() {
    local name="$1" tag="$2" repo="$packages/$1"
    rm -rf "$repo"
    mkdir -p "$repo"
    local path=""
    while IFS= read -r line; do
        case "$line" in
            "--- "*) path="$repo/${line#--- }"; mkdir -p "$(dirname "$path")"; : > "$path" ;;
            *) printf '%s\n' "$line" >> "$path" ;;
        esac
    done
    git -C "$repo" init -q
    git -C "$repo" add -A
    # A fixed author, committer and date: the same files give the same commit on every run, so
    # the tag a scratch path's repository cache already holds never moves (git would refuse to
    # fetch a moved tag).
    GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z" \
        git -C "$repo" -c user.name="stand-in" -c user.email="stand-in@localhost" commit -q -m "stand-in for $name"
    git -C "$repo" tag "$tag"
}

make_repository SQLCipher.swift 4.15.0 <<'PACKAGE'
--- Package.swift
// swift-tools-version:5.9
// Stand-in made by SessionVault's scripts/make-standins.sh for sqlcipher/SQLCipher.swift: the
// same package, product and module names, Debian's libsqlcipher instead of the XCFramework.
import PackageDescription

let package = Package(
    name: "SQLCipher",
    products: [.library(name: "SQLCipher", targets: ["SQLCipher"])],
    targets: [.systemLibrary(name: "SQLCipher", pkgConfig: "sqlcipher")]
)
--- Sources/SQLCipher/module.modulemap
module SQLCipher [system] {
    header "shim.h"
    link "sqlcipher"
    export *
}
--- Sources/SQLCipher/shim.h
// No SQLITE_HAS_CODEC here: the real package's header leaves it to the importer as well.
#include <sqlcipher/sqlite3.h>
PACKAGE

make_repository swift-sodium 0.10.0 <<'PACKAGE'
--- Package.swift
// swift-tools-version:5.9
// Stand-in made by SessionVault's scripts/make-standins.sh for jedisct1/swift-sodium: the same
// package, product and module names, Debian's libsodium instead of the XCFramework.
import PackageDescription

let package = Package(
    name: "Sodium",
    products: [.library(name: "Clibsodium", targets: ["Clibsodium"])],
    targets: [.systemLibrary(name: "Clibsodium", pkgConfig: "libsodium")]
)
--- Sources/Clibsodium/module.modulemap
module Clibsodium [system] {
    header "shim.h"
    link "sodium"
    export *
}
--- Sources/Clibsodium/shim.h
#include <sodium.h>
PACKAGE

# SwiftPM's own command writes the file (into a package's .swiftpm), here into a throwaway
# package's, then moved to <dir>/config/mirrors.json: the shared mirrors file of --config-path.
writer="$dir/mirror-writer"
rm -rf "$writer" "$config"
mkdir -p "$writer" "$config"
printf '// swift-tools-version:5.9\nimport PackageDescription\nlet package = Package(name: "MirrorWriter")\n' > "$writer/Package.swift"
# The URLs exactly as Package.swift spells them.
swift package --package-path "$writer" config set-mirror \
    --original https://github.com/sqlcipher/SQLCipher.swift.git --mirror "$packages/SQLCipher.swift"
swift package --package-path "$writer" config set-mirror \
    --original https://github.com/jedisct1/swift-sodium.git --mirror "$packages/swift-sodium"
mv "$writer/.swiftpm/configuration/mirrors.json" "$config/mirrors.json"
rm -rf "$writer"
echo "stand-ins: $packages/SQLCipher.swift (4.15.0), $packages/swift-sodium (0.10.0); mirrors in $config/mirrors.json"
