#!/usr/bin/env python3
"""The README's and the DocC articles' code is compiled source: each fenced code block preceded
by `<!-- example: PATH -->` must be exactly the file at PATH (Examples/…, which CI builds, or a
CLI snapshot under Tests/, which SnapshotTests compares with the built binary). This script checks
that, checks the documents' relative links, and assembles the client package that
scripts/readme-client.sh builds from the documents' text alone.

  readme_examples.py check
      Every ```swift block in README.md and Sources/SessionVault/Documentation.docc/*.md is
      marked and equals its file byte for byte (so does every other marked block); every file of
      Examples/ReadmeExamples except main.swift, and the client manifest, is shown in the README
      or an article; every relative link in README.md, ARCHITECTURE.md, CONTRIBUTING.md and
      Benchmarks/README.md names a file or folder that exists and, with `#anchor`, a heading of
      that Markdown file. Exit 1 with the differences otherwise.
  readme_examples.py assemble CLIENT_DIR PACKAGE_PATH
      Writes CLIENT_DIR/Package.swift (the README's manifest, its path dependency pointed at
      PACKAGE_PATH) and CLIENT_DIR/Sources/MyApp/main.swift: every block of
      Examples/ReadmeExamples, first the README's in README order, then those of CLIENT_ARTICLES
      in that order (each file once), then the story check (Examples/ReadmeExamples/main.swift,
      which no document shows).
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

# The articles whose examples join the README's in the client package, in this order: the story
# first (as the README tells it), then the variations. Every example file must end up in it.
CLIENT_ARTICLES = [
    "GettingStarted.md", "SigningIn.md", "ResumeOnLaunch.md", "APICallsAndSignOut.md",
    "SenderConstrainedSessions.md", "KeyProvidersAndKeychain.md", "SeveralProcesses.md",
    "VaultWithoutAManager.md", "CorruptionAndRecovery.md",
]
ARTICLE_DIR = "Sources/SessionVault/Documentation.docc"
# The documents whose relative links must resolve.
LINKED_DOCUMENTS = ["README.md", "ARCHITECTURE.md", "CONTRIBUTING.md", "Benchmarks/README.md"]

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
    shown, in_readme = set(), set()
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
            shown.add(target)
            if document == README:
                in_readme.add(target)
    for path in example_files():
        target = os.path.relpath(path, ROOT)
        if target not in shown:
            problems.append(f"neither README.md nor an article shows {target}")
    assembled = {target for target, _ in client_blocks()}
    for path in example_files():
        target = os.path.relpath(path, ROOT)
        if target.startswith(EXAMPLES + "/") and target in shown and target not in assembled:
            problems.append(f"{target} is shown only in an article that scripts/readme_examples.py's CLIENT_ARTICLES does not name")
    for missing in CLIENT_ARTICLES:
        if not os.path.isfile(os.path.join(ROOT, ARTICLE_DIR, missing)):
            problems.append(f"CLIENT_ARTICLES names {missing}, which is not in {ARTICLE_DIR}")
    links = check_links()
    problems += links
    for problem in problems:
        print(problem)
    print(f"README examples: {'FAILED' if problems else 'every block matches its compiled source, every relative link resolves'}"
          f" ({len(in_readme)} files shown in README.md, {len(shown)} in all, {len(ARTICLES)} articles checked,"
          f" links of {len(LINKED_DOCUMENTS)} documents)")
    return 1 if problems else 0


def example_files():
    """Every file a document must show: the examples but the story check, and the manifest."""
    files = sorted(glob.glob(os.path.join(ROOT, EXAMPLES, "*.swift"))) + [os.path.join(ROOT, MANIFEST)]
    return [path for path in files if os.path.relpath(path, ROOT) != DRIVER]


def client_blocks():
    """(target, code) of every example block for the client, README first, each file once."""
    documents = [README] + [os.path.join(ROOT, ARTICLE_DIR, name) for name in CLIENT_ARTICLES]
    seen, found = set(), []
    for document in documents:
        if not os.path.isfile(document):
            continue
        for _, _, target, code in blocks(document):
            if target and target not in seen:
                seen.add(target)
                found.append((target, code))
    return found


LINK = re.compile(r"(?<!!)\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)\)")


def anchors(path):
    """GitHub's anchors for the headings of a Markdown file: lower case, punctuation other than
    `-` and `_` dropped, each space a `-`; a repeated heading gets `-1`, `-2`, …"""
    found, counts = set(), {}
    fenced = False
    for line in open(path, encoding="utf-8").read().split("\n"):
        if FENCE.match(line):
            fenced = not fenced
            continue
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if fenced or not heading:
            continue
        text = re.sub(r"`|\*\*|\[|\]\([^)]*\)", "", heading.group(1))
        slug = "".join(c for c in text.lower() if c.isalnum() or c in "-_ ").replace(" ", "-")
        number = counts.get(slug, 0)
        counts[slug] = number + 1
        found.add(slug if number == 0 else f"{slug}-{number}")
    return found


def check_links():
    """Every relative link of LINKED_DOCUMENTS names an existing file or folder, and an anchor a
    heading of its Markdown file. Links with a scheme (https:, mailto:) are not followed."""
    problems = []
    for name in LINKED_DOCUMENTS:
        document = os.path.join(ROOT, name)
        if not os.path.isfile(document):
            problems.append(f"{name}: missing")
            continue
        fenced = False
        for number, line in enumerate(open(document, encoding="utf-8").read().split("\n"), 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            for link in LINK.findall(re.sub(r"`[^`]*`", "``", line)):
                if re.match(r"^[a-z][a-z0-9+.-]*:", link):
                    continue
                path, _, anchor = link.partition("#")
                target = os.path.normpath(os.path.join(os.path.dirname(document), path)) if path else document
                if not os.path.exists(target):
                    problems.append(f"{name}:{number}: link to {link}: {os.path.relpath(target, ROOT)} does not exist")
                elif anchor and target.endswith(".md") and anchor not in anchors(target):
                    problems.append(f"{name}:{number}: link to {link}: no heading #{anchor} in {os.path.relpath(target, ROOT)}")
    return problems


def assemble(client, package):
    readme = [(target, code) for _, _, target, code in blocks(README) if target]
    manifests = [code for target, code in readme if target == MANIFEST]
    if len(manifests) != 1 or manifests[0].count(README_DEPENDENCY) != 1:
        print(f"README.md must show {MANIFEST} once, with {README_DEPENDENCY}")
        return 1
    sources = [code for target, code in client_blocks() if target.startswith(EXAMPLES + "/")]
    os.makedirs(os.path.join(client, "Sources/MyApp"), exist_ok=True)
    with open(os.path.join(client, "Package.swift"), "w", encoding="utf-8") as out:
        out.write(manifests[0].replace(README_DEPENDENCY, f'.package(name: "SessionVault", path: "{package}")'))
    with open(os.path.join(client, "Sources/MyApp/main.swift"), "w", encoding="utf-8") as out:
        out.write("// Assembled by scripts/readme_examples.py: the README's Swift blocks, the named articles', then the story check.\n\n")
        out.write("\n".join(sources))
        out.write("\n// ---- the story check (Examples/ReadmeExamples/main.swift; in no document) ----\n")
        out.write(open(os.path.join(ROOT, DRIVER), encoding="utf-8").read())
    print(f"client package at {client}: {len(sources)} blocks of the README and its articles, and the story check")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["check"]:
        sys.exit(check())
    if sys.argv[1:2] == ["assemble"] and len(sys.argv) == 4:
        sys.exit(assemble(sys.argv[2], sys.argv[3]))
    print(__doc__)
    sys.exit(64)
