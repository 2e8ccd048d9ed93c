import ArgumentParser

/// `--evidence`, the same flag with the same record on every read command: `inspect` (which
/// always adds the record), `verify`, `events`, `export-key` and `resume --dry-run`.
struct EvidenceOptions: ParsableArguments {
    @Flag(
        name: .customLong("evidence"),
        help: """
            Add the chain-of-custody record: SHA-256, size and modification time of each vault file as read, \
            the write-ahead log's frames, tool and engine versions, the time of the run (inspect always adds it; \
            resume only with --dry-run).
            """)
    var requested = false
}
