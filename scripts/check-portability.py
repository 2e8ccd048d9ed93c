#!/usr/bin/env python3
"""The library must not call what cannot exist on Apple platforms (an iOS build would
fail where Linux passed).

Scans Swift sources for Linux-only calls, constants, fields and modules (a list kept below:
glibc/Linux system calls, flags and struct fields with no Darwin counterpart under that name,
`/proc` and `/sys` paths, `Glibc.`-qualified names). Each one must sit inside an `#if` branch
for Linux (`os(Linux)`, `canImport(Glibc)`, `os(Android)`, `canImport(Musl)`) whose `#if` group
also has a branch for Apple platforms (`canImport(Darwin)`, `os(macOS)`, `os(iOS)`, … or a
plain `#else`). And every `#if` group with a glibc branch (`canImport(Glibc)`, `os(Linux)`) has
an Android one (`canImport(Android)`, `os(Android)`): Android's C library is Bionic,
imported as `Android`, and `os(Linux)` is false there, so a group without that branch leaves an
Android build without the module or the call. Anything else is reported with its file and line;
exit 1.

  check-portability.py DIR…      scan the .swift files under each DIR
  check-portability.py --self-test
"""
import os
import re
import sys

LINUX_ONLY = [
    r"prctl", r"PR_SET_[A-Z_]+", r"fdatasync", r"O_TMPFILE", r"O_PATH", r"O_NOATIME", r"O_DIRECT", r"O_LARGEFILE",
    r"statx", r"renameat2", r"RENAME_NOREPLACE", r"RENAME_EXCHANGE", r"AT_EMPTY_PATH", r"memfd_create",
    r"epoll_[a-z_]+", r"inotify_[a-z_]+", r"eventfd", r"signalfd", r"timerfd_[a-z_]+", r"splice", r"tee",
    r"fallocate", r"posix_fallocate", r"posix_fadvise", r"sync_file_range", r"copy_file_range", r"getrandom",
    r"pipe2", r"accept4", r"dup3", r"mremap", r"mlock2", r"SOCK_CLOEXEC", r"SOCK_NONBLOCK", r"MSG_NOSIGNAL",
    r"st_mtim", r"st_atim", r"st_ctim", r"secure_getenv", r"gettid", r"sched_getaffinity", r"__errno_location",
    r"syscall", r"SYS_[a-z_0-9]+", r"getauxval", r"malloc_trim", r"malloc_usable_size", r"F_OFD_[A-Z]+",
    r"F_SETPIPE_SZ", r"lseek64", r"stat64", r"fstat64", r"lstat64", r"open64", r"off64_t", r"loff_t",
    r"MADV_DONTDUMP", r"MAP_POPULATE", r"EBADFD", r"ENOMEDIUM", r"EUCLEAN", r"ENOKEY", r"program_invocation_name",
]
FORBIDDEN = re.compile(r"\b(?:" + "|".join(LINUX_ONLY) + r")\b|\bGlibc\.|\bimport\s+Glibc\b|\"/proc/|\"/sys/")
LINUX_CONDITION = re.compile(r"os\(Linux\)|canImport\(Glibc\)|os\(Android\)|canImport\(Musl\)|canImport\(Android\)")
GLIBC_CONDITION = re.compile(r"canImport\(Glibc\)|os\(Linux\)")
ANDROID_CONDITION = re.compile(r"canImport\(Android\)|os\(Android\)")
APPLE_CONDITION = re.compile(r"canImport\(Darwin\)|os\((macOS|iOS|tvOS|watchOS|visionOS)\)")
DIRECTIVE = re.compile(r"^\s*#(if|elseif|else|endif)\b(.*)$")


def strip_comment(line):
    """The code of a line: a `//` comment and the text of string literals do not count,
    except string literals that name a /proc or /sys path."""
    code, in_string, index = [], False, 0
    while index < len(line):
        char = line[index]
        if not in_string and line.startswith("//", index):
            break
        if char == '"':
            in_string = not in_string
        if in_string and char != '"' and not line.startswith("/proc/", index) and not line.startswith("/sys/", index):
            # Keep the opening quote and path prefixes; blank out other string text.
            code.append(" ")
        else:
            code.append(char)
        index += 1
    return "".join(code)


def scan(path, text):
    """[(line number, text)] of Linux-only uses outside a Linux branch with an Apple counterpart."""
    groups = []            # every #if group: list of branch conditions ("" for #else)
    openings = []          # each group's #if: (line number, text)
    stack = []             # open groups: (group index, branch index)
    uses = []              # (line number, line, [(group, branch) enclosing it])
    for number, line in enumerate(text.split("\n"), start=1):
        directive = DIRECTIVE.match(line)
        if directive:
            kind, condition = directive.group(1), directive.group(2).strip()
            if kind == "if":
                groups.append([condition])
                openings.append((number, line.strip()))
                stack.append((len(groups) - 1, 0))
            elif kind in ("elseif", "else") and stack:
                group, _ = stack.pop()
                groups[group].append(condition if kind == "elseif" else "")
                stack.append((group, len(groups[group]) - 1))
            elif kind == "endif" and stack:
                stack.pop()
            continue
        if FORBIDDEN.search(strip_comment(line)):
            uses.append((number, line.strip(), list(stack)))
    problems = []
    for number, line, enclosing in uses:
        allowed = False
        for group, branch in enclosing:
            conditions = groups[group]
            others = conditions[:branch] + conditions[branch + 1:]
            if LINUX_CONDITION.search(conditions[branch]) and any(c == "" or APPLE_CONDITION.search(c) for c in others):
                allowed = True
        if not allowed:
            problems.append((number, line))
    for (number, line), conditions in zip(openings, groups):
        if any(GLIBC_CONDITION.search(c) for c in conditions) and not any(ANDROID_CONDITION.search(c) for c in conditions):
            problems.append((number, f"{line} (a glibc branch without an Android branch)"))
    return sorted(problems)


def self_test():
    good = ("#if canImport(Glibc)\nimport Glibc\nlet t = info.st_mtim\n#elseif canImport(Android)\nimport Android\n"
            "let t = info.st_mtim\n#elseif canImport(Darwin)\nimport Darwin\nlet t = info.st_mtimespec\n#endif\n")
    no_android = "#if canImport(Glibc)\nimport Glibc\n#elseif canImport(Darwin)\nimport Darwin\n#endif\n"
    shared_android = "#if canImport(Glibc) || canImport(Android)\nlet t = info.st_mtim\n#else\nlet t = info.st_mtimespec\n#endif\n"
    no_counterpart = "#if os(Linux)\nlet fd = memfd_create(name, 0)\n#endif\n"
    bare = "import Foundation\n// fdatasync in a comment is fine\nlet ok = fdatasync(fd)\n"
    nested = "#if os(Linux)\n#if DEBUG\n_ = prctl(1)\n#endif\n#elseif os(Android)\n#else\n#endif\n"
    text_only = 'let message = "statx is not called here"\n'
    results = [scan("good", good), scan("no-counterpart", no_counterpart), scan("bare", bare),
               scan("nested", nested), scan("text", text_only), scan("no-android", no_android),
               scan("shared-android", shared_android)]
    expected = [[], [(1, "#if os(Linux) (a glibc branch without an Android branch)"), (2, "let fd = memfd_create(name, 0)")],
                [(3, "let ok = fdatasync(fd)")], [], [],
                [(1, "#if canImport(Glibc) (a glibc branch without an Android branch)")], []]
    if results != expected:
        print(f"check-portability self-test FAILED: {results}")
        return 1
    print("check-portability self-test: passed")
    return 0


def main(directories):
    problems, files = [], 0
    for directory in directories:
        for base, _, names in os.walk(directory):
            for name in sorted(names):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(base, name)
                files += 1
                for number, line in scan(path, open(path, encoding="utf-8").read()):
                    kind = ("glibc branch without an Android (Bionic) branch" if line.endswith("without an Android branch)")
                            else "Linux-only outside a Linux branch with an Apple counterpart")
                    problems.append(f"{path}:{number}: {kind}: {line}")
    for problem in problems:
        print(problem)
    print(f"portability: {len(problems)} problem(s) in {files} Swift files under {', '.join(directories)}")
    return 1 if problems else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    if len(sys.argv) < 2:
        print(__doc__)
        sys.exit(64)
    sys.exit(self_test() or main(sys.argv[1:]))
