#!/usr/bin/env python3
"""The README's (and the DocC articles') Swift code is compiled source: each fenced code block
preceded by `<!-- example: PATH -->` must be exactly the file at PATH (Examples/…), which CI
builds. This script checks that, and assembles the client package that scripts/readme-client.sh
builds from the README's text alone.

  readme_examples.py check
      Every ```swift block in README.md and Sources/SessionVault/Documentation.docc/*.md is
      marked, equals its file byte for byte, and every file of Examples/ReadmeExamples except
      main.swift is shown in the README. Exit 1 with the differences otherwise.
  readme_examples.py assemble CLIENT_DIR PACKAGE_PATH
      Writes CLIENT_DIR/Package.swift (the README's manifest, its path dependency pointed at
      PACKAGE_PATH) and CLIENT_DIR/Sources/MyApp/main.swift: every README block of
      Examples/ReadmeExamples in README order, then the story check (Examples/ReadmeExamples/
      main.swift, which the README does not show).
"""
import difflib
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
ARTICLES = sorted(glob.glob(os.path.join(ROOT, "Sources/SessionVault/Documentation.docc/**/*.md"), recursive=True))
EXAMPLES = "Examples/ReadmeExamples"
MANIFEST = "Examples/ClientPackage/Package.swift"
DRIVER = EXAMPLES + "/main.swift"
# The manifest's path dependency as the README writes it; the client points it at this checkout.
README_DEPENDENCY = '.package(name: "SessionVault", path: "../SessionVault")'

MARKER = re.compile(r"^<!-- example: (\S+) -->$")
FENCE = re.compile(r"^(```+|~~~+)(.*)$")


def blocks(path):
    """(line number, language, marked path or None, code) for every fenced block in `path`."""
    found = []
    lines = open(path, encoding="utf-8").read().split("\n")
    index = 0
    marked = None
    while index < len(lines):
        line = lines[index]
        marker = MARKER.match(line.strip())
        fence = FENCE.match(line)
        if marker:
            marked = (marker.group(1), index + 1)
        elif fence:
            opening, language = fence.group(1), fence.group(2).strip()
            start = index
            index += 1
            code = []
            while index < len(lines) and not lines[index].startswith(opening):
                code.append(lines[index])
                index += 1
            # The marker must be the line just before the block.
            target = marked[0] if marked and marked[1] == start else None
            found.append((start + 1, language, target, "\n".join(code) + "\n"))
            marked = None
        elif line.strip():
            marked = None
        index += 1
    return found


def check():
    problems = []
    shown = set()
    for document in [README] + ARTICLES:
        name = os.path.relpath(document, ROOT)
        for line, language, target, code in blocks(document):
            if target is None:
                if language == "swift":
                    problems.append(f"{name}:{line}: a swift block without an `<!-- example: PATH -->` line before it")
                continue
            path = os.path.join(ROOT, target)
            if not os.path.isfile(path):
                problems.append(f"{name}:{line}: {target} does not exist")
                continue
            source = open(path, encoding="utf-8").read()
            if code != source:
                diff = difflib.unified_diff(source.splitlines(), code.splitlines(), target, f"{name}:{line}", lineterm="")
                problems.append(f"{name}:{line}: differs from {target}:\n" + "\n".join(diff))
            if document == README:
                shown.add(target)
    for path in sorted(glob.glob(os.path.join(ROOT, EXAMPLES, "*.swift"))) + [os.path.join(ROOT, MANIFEST)]:
        target = os.path.relpath(path, ROOT)
        if target != DRIVER and target not in shown:
            problems.append(f"README.md: never shows {target}")
    for problem in problems:
        print(problem)
    print(f"README examples: {'FAILED' if problems else 'every block matches its compiled source'}"
          f" ({len(shown)} files shown in README.md, {len(ARTICLES)} articles checked)")
    return 1 if problems else 0


def assemble(client, package):
    readme = [(target, code) for _, _, target, code in blocks(README) if target]
    manifests = [code for target, code in readme if target == MANIFEST]
    if len(manifests) != 1 or manifests[0].count(README_DEPENDENCY) != 1:
        print(f"README.md must show {MANIFEST} once, with {README_DEPENDENCY}")
        return 1
    sources = [code for target, code in readme if target.startswith(EXAMPLES + "/")]
    os.makedirs(os.path.join(client, "Sources/MyApp"), exist_ok=True)
    with open(os.path.join(client, "Package.swift"), "w", encoding="utf-8") as out:
        out.write(manifests[0].replace(README_DEPENDENCY, f'.package(name: "SessionVault", path: "{package}")'))
    with open(os.path.join(client, "Sources/MyApp/main.swift"), "w", encoding="utf-8") as out:
        out.write("// Assembled by scripts/readme_examples.py: the README's Swift blocks, then the story check.\n\n")
        out.write("\n".join(sources))
        out.write("\n// ---- the story check (Examples/ReadmeExamples/main.swift; not in the README) ----\n")
        out.write(open(os.path.join(ROOT, DRIVER), encoding="utf-8").read())
    print(f"client package at {client}: {len(sources)} README blocks and the story check")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["check"]:
        sys.exit(check())
    if sys.argv[1:2] == ["assemble"] and len(sys.argv) == 4:
        sys.exit(assemble(sys.argv[2], sys.argv[3]))
    print(__doc__)
    sys.exit(64)
