#!/usr/bin/env python3
"""Fails when a lower layer of the library names a type declared in a higher one.

The layers are the folders of Sources/SessionVault, bottom to top, as ARCHITECTURE.md draws them.
A file may name types of its own folder and of folders below it, never above: the way swift-nio's
NIOCore never imports NIOPosix, only here inside one module, where the compiler cannot hold the
line for us.

A "type" is every struct, enum, class, actor, protocol and typealias declared at the top level of a
file, or nested in an `extension` of one (which is reached through its parent's name anyway). A file
names a type when the identifier appears in its code outside comments and string literals; an
`extension T` in a lower folder names T too. What it cannot see: a member that a higher folder adds
to a lower type through an extension, called by a lower folder without naming the higher type.

It also checks that every table has one owner below the vault: a file in a layer of
`TABLELESS_LAYERS` never names a table (one that a migration creates, or the migrator's own) in a
string literal, where SQL lives; its statements are the owning record's (`SessionRecord`,
`VaultStateRecord`, `AuditLog` in Integrity/). Comments may name tables, and so may Swift
identifiers that happen to be spelled alike (`sessions:`).

Usage: layer_check.py               (exit 0 when every arrow points down and no vault file names a
                                     table, 1 otherwise)
       layer_check.py --self-test   (the checks themselves: a planted upward arrow, and a planted
                                     table name in SQL, must fail them)
"""
import contextlib
import io
import pathlib
import re
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent / "Sources" / "SessionVault"

# Bottom to top. (The fuzz harness is a target of its own, Sources/_SessionVaultFuzzing: the
# compiler keeps it above the library.)
LAYERS = ["Secrets", "Model", "Storage", "Crypto", "Integrity", "Vault", "Resume"]

# Layers whose files reach tables only through their owners, never by name.
TABLELESS_LAYERS = ["Vault", "Resume"]

MIGRATIONS = ROOT.parent.parent / "Migrations"
CREATE_TABLE = re.compile(r"CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)

DECLARATION = re.compile(
    r"^(?:(?:public|package|internal|fileprivate|private|final|indirect|nonisolated|@\w+(?:\([^)]*\))?)\s+)*"
    r"(?:struct|enum|class|actor|protocol|typealias)\s+([A-Z][A-Za-z0-9_]*)"
)
IDENTIFIER = re.compile(r"\b[A-Z][A-Za-z0-9_]*\b")


def split_code_and_strings(text: str) -> tuple:
    """One scan of Swift source: (the code with comments dropped and every string literal
    blanked to "", the text of every string literal outside comments, one per line)."""
    code, literals = [], []
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j
            literals.append(text[i + 3:j])
            code.append('""')
            i = j + 3
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"' and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            literals.append(text[i + 1:j])
            code.append('""')
            i = j + 1
        else:
            code.append(text[i])
            i += 1
    return "".join(code), "\n".join(literals)


def strip_comments_and_strings(text: str) -> str:
    """Blanks comments and string literals so that prose naming a type is not a dependency."""
    return split_code_and_strings(text)[0]


def string_literals(text: str) -> str:
    """The text of every string literal outside comments (interpolations included), one per line."""
    return split_code_and_strings(text)[1]


def table_names(root: pathlib.Path, migrations: pathlib.Path) -> set:
    """Every table a migration creates, and any a library file creates itself (the migrator's)."""
    names = set()
    for path in sorted(migrations.glob("*.sql")):
        names.update(CREATE_TABLE.findall(path.read_text()))
    for path in sorted(root.rglob("*.swift")):
        names.update(CREATE_TABLE.findall(string_literals(path.read_text())))
    return names


def check_tables(root: pathlib.Path, migrations: pathlib.Path) -> int:
    """Fails when a file of a `TABLELESS_LAYERS` layer names a table in a string literal."""
    tables = table_names(root, migrations)
    if not tables:
        print(f"table_check: no table found in {migrations}: nothing would be checked")
        return 1
    pattern = re.compile(r"\b(" + "|".join(sorted(map(re.escape, tables))) + r")\b")
    violations = []
    for layer in TABLELESS_LAYERS:
        for path in sorted((root / layer).rglob("*.swift")):
            for name in sorted(set(pattern.findall(string_literals(path.read_text())))):
                violations.append((path.relative_to(root.parent.parent), layer, name))
    for path, layer, name in violations:
        print(f"{path}: {layer} names the table {name}; its statements belong to the table's owner below")
    if violations:
        print(f"table_check: {len(violations)} table name(s) in {', '.join(TABLELESS_LAYERS)}")
        return 1
    print(f"table_check: {len(tables)} tables, named by no file of {', '.join(TABLELESS_LAYERS)}")
    return 0


def top_level_declarations(code: str):
    """Types declared at brace depth 0, or at depth 1 inside an extension."""
    depth = 0
    in_extension = False
    for line in code.splitlines():
        stripped = line.strip()
        if depth == 0:
            in_extension = bool(re.match(r"^(?:(?:public|package|internal|private|fileprivate)\s+)?extension\b", stripped))
        match = DECLARATION.match(stripped)
        if match and (depth == 0 or (depth == 1 and in_extension)):
            yield match.group(1)
        depth += line.count("{") - line.count("}")


def check(root: pathlib.Path) -> int:
    files = {}
    owner = {}
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*.swift")):
            code = strip_comments_and_strings(path.read_text())
            files[path] = (layer, code)
            for name in top_level_declarations(code):
                owner.setdefault(name, set()).add(layer)
    unknown = sorted(p.name for p in root.iterdir() if p.is_dir() and p.name not in LAYERS and not p.name.endswith(".docc"))
    if unknown:
        print(f"layer_check: folders with no place in the layer list: {', '.join(unknown)}")
        return 1
    rank = {layer: index for index, layer in enumerate(LAYERS)}
    violations = []
    for path, (layer, code) in files.items():
        named = set(IDENTIFIER.findall(code))
        for name in sorted(named):
            layers = owner.get(name)
            if not layers or layer in layers:
                continue
            lowest = min(layers, key=rank.get)
            if rank[lowest] > rank[layer]:
                violations.append((path.relative_to(root.parent.parent), layer, name, lowest))
    for path, layer, name, higher in violations:
        print(f"{path}: {layer} names {name}, declared in {higher} above it")
    if violations:
        print(f"layer_check: {len(violations)} arrow(s) point up; layers bottom to top: {' < '.join(LAYERS)}")
        return 1
    print(f"layer_check: {len(files)} files, every arrow points down ({' < '.join(LAYERS)})")
    return 0


def self_test() -> int:
    """Plants the kinds of upward arrow and table name the checks must see, and what they must accept."""
    layer_cases = {
        "a lower file naming a higher type": ("Model/A.swift", "struct A { let b: VaultThing }", 1),
        "an extension of a higher type": ("Storage/A.swift", "extension VaultThing { }", 1),
        "a higher file naming a lower type": ("Vault/A.swift", "struct A { let b: ModelThing }", 0),
        "a higher type named only in a comment or string": ("Model/A.swift", '// VaultThing\nlet a = "VaultThing"', 0),
    }
    table_cases = {
        "a vault file naming a table in SQL": ("Vault/A.swift", 'let a = "DELETE FROM things WHERE id = ?"', 1),
        "a vault file naming a table in multi-line SQL": ("Vault/A.swift", 'let a = """\n    UPDATE things SET x = 1\n    """', 1),
        "a vault file naming the migrator's table": ("Vault/A.swift", 'let a = "SELECT * FROM bookkeeping"', 1),
        "a table named in a comment": ("Vault/A.swift", "// the things table\n/* things */\nlet a = 1", 0),
        "a Swift identifier spelled like a table": ("Vault/A.swift", "let things = 1; f(things: things)", 0),
        "an owner below the vault naming its table": ("Integrity/A.swift", 'let a = "DELETE FROM things"', 0),
    }
    failures = 0
    for kind, cases in (("layer", layer_cases), ("table", table_cases)):
        for name, (path, text, expected) in cases.items():
            with tempfile.TemporaryDirectory() as scratch:
                root = pathlib.Path(scratch) / "Sources" / "SessionVault"
                migrations = pathlib.Path(scratch) / "Migrations"
                migrations.mkdir()
                (migrations / "0001_create_things.sql").write_text("CREATE TABLE things (id TEXT);\n")
                for layer in LAYERS:
                    (root / layer).mkdir(parents=True)
                (root / "Vault" / "VaultThing.swift").write_text("struct VaultThing {}\n")
                (root / "Model" / "ModelThing.swift").write_text("struct ModelThing {}\n")
                (root / "Storage" / "Migrator.swift").write_text('let create = "CREATE TABLE IF NOT EXISTS bookkeeping (v INTEGER)"\n')
                (root / path).write_text(text + "\n")
                with contextlib.redirect_stdout(io.StringIO()):
                    got = check(root) if kind == "layer" else check_tables(root, migrations)
            if (got != 0) != (expected != 0):
                print(f"layer_check self-test: {name}: exit {got}, expected {'failure' if expected else 'success'}")
                failures += 1
    total = len(layer_cases) + len(table_cases)
    print(f"layer_check self-test: {total - failures} of {total} cases as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    if "--self-test" in sys.argv[1:]:
        sys.exit(self_test())
    layers = check(ROOT)
    tables = check_tables(ROOT, MIGRATIONS)
    sys.exit(1 if layers or tables else 0)
