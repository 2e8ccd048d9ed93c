#!/usr/bin/env bash
# Builds Debian's SQLCipher 4.x source package into .build-sqlcipher4/ (library, headers under
# include/sqlcipher/, the shell at bin/sqlcipher, a pkg-config file under lib/pkgconfig/).
# The source comes through apt with a private configuration and state directory, so the machine's
# own apt sources, lists and cache are never touched. A finished build is reused: the stamp file
# names the version, so a changed version rebuilds.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION="${SQLCIPHER4_DEBIAN_VERSION:-4.6.1-2}"
ROOT="$PWD/.build-sqlcipher4"
PREFIX="$ROOT/engine"
STAMP="$PREFIX/.built-$VERSION"

# The pkg-config directory the 4.x leg builds with (rewritten every run; cheap). sqlcipher.pc
# points at the engine. libsodium.pc is the system's without its -L/-I: those name the system
# directories, which hold Debian's libsqlcipher and <sqlcipher/sqlite3.h> (3.4.1), and SwiftPM
# placed libsodium's -L ahead of SQLCipher's, which linked 3.4.1 against the 4.x header. The
# compiler and linker search the system directories anyway, after the engine's.
write_pkgconfig() {
    mkdir -p "$ROOT/pkgconfig"
    cat > "$ROOT/pkgconfig/sqlcipher.pc" <<PC
prefix=$PREFIX
libdir=\${prefix}/lib
includedir=\${prefix}/include
Name: SQLCipher
Description: SQLCipher $VERSION built for the 4.x test leg
Version: $VERSION
Libs: -L\${libdir} -lsqlcipher
Cflags: -I\${includedir}
PC
    local sodium_version
    sodium_version="$(pkg-config --modversion libsodium)"
    cat > "$ROOT/pkgconfig/libsodium.pc" <<PC
Name: libsodium
Description: the system libsodium, without system -L/-I (see build-sqlcipher4.sh)
Version: $sodium_version
Libs: -lsodium
Cflags:
PC
}

if [ -f "$STAMP" ] && [ -x "$ROOT/bin/sqlcipher" ]; then
    write_pkgconfig
    echo "SQLCipher $VERSION already built in $PREFIX"
    exit 0
fi

SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
missing=""
for p in dpkg-dev libssl-dev tcl build-essential; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "Installing:$missing"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi

# The mirror this machine already uses for bookworm, so the fetch goes where the network allows.
MIRROR="$(grep -hoE 'https?://[^ ]*/debian/?$' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null | head -n1 || true)"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
APT="$ROOT/apt"
mkdir -p "$APT/etc" "$APT/state/lists/partial" "$APT/cache/archives/partial" "$ROOT/src"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${MIRROR%/} trixie main" > "$APT/etc/sources.list"
APT_OPTS=(-o "Dir::Etc::SourceList=$APT/etc/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
          -o "Dir::State=$APT/state" -o "Dir::Cache=$APT/cache" -o "Debug::NoLocking=1"
          -o "APT::Sandbox::User=root")

SRC_DIR="$(ls -d "$ROOT"/src/sqlcipher-4*/ 2>/dev/null | head -n1 || true)"
if [ -z "$SRC_DIR" ]; then
    apt-get "${APT_OPTS[@]}" -qq update
    (cd "$ROOT/src" && apt-get "${APT_OPTS[@]}" -q source "sqlcipher=$VERSION")
    SRC_DIR="$(ls -d "$ROOT"/src/sqlcipher-4*/ | head -n1)"
fi
echo "Building SQLCipher from $SRC_DIR"

# CFLAGS replaces configure's default -O2, so it is set here. The defines are the ones apps build
# with (codec, temp store in memory, column metadata as in Debian's package), optimized.
BUILD="$ROOT/obj"
rm -rf "$BUILD" && mkdir -p "$BUILD"
cd "$BUILD"
"$SRC_DIR/configure" --prefix="$PREFIX" --enable-tempstore=yes --disable-tcl --disable-static \
    --enable-shared --disable-readline \
    CFLAGS="-O2 -DNDEBUG -DSQLITE_HAS_CODEC -DSQLITE_TEMP_STORE=2 -DSQLITE_ENABLE_COLUMN_METADATA" \
    LDFLAGS="-lcrypto" > "$ROOT/configure.log"
make -j"$(nproc)" > "$ROOT/make.log" 2>&1 || { tail -40 "$ROOT/make.log"; exit 1; }
make install > "$ROOT/install.log" 2>&1 || { tail -40 "$ROOT/install.log"; exit 1; }

mkdir -p "$ROOT/bin"
ln -sf "$PREFIX/bin/sqlcipher" "$ROOT/bin/sqlcipher"
write_pkgconfig
touch "$STAMP"
"$ROOT/bin/sqlcipher" :memory: "PRAGMA cipher_version;" || true
