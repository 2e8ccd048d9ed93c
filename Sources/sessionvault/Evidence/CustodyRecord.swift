import Foundation
import SessionVault

/// The chain-of-custody record of one run: which files were read (digest, size, modification
/// time as found), by which tool and engine, when, and whether they were still the same when the
/// command finished. What an investigator pastes into a case file.
struct CustodyRecord {
    let command: String
    /// The system clock at the start of the run (never `--now`, which is a replayed time).
    let ranAt: Date
    let tool: String
    let engine: EngineVersions
    let files: [EvidenceFile]
    let wal: WALSummary?
    /// Pages of the main file the log (or a migration of the copy) changed; nil when the vault
    /// was not opened.
    let pagesChangedByOpening: Int?
    /// Originals that differed when read again at the end: empty is the expected outcome.
    let changedOriginals: [String]

    init(command: String, ranAt: Date, copy: EvidenceCopy, opened: Bool) {
        self.command = command
        self.ranAt = ranAt
        tool = "sessionvault \(SessionVaultVersion.current)"
        engine = EngineVersions.current()
        files = copy.files
        wal = copy.wal
        pagesChangedByOpening = opened ? copy.pagesChanged() : nil
        changedOriginals = copy.changedOriginals()
    }

    /// One sentence on the write-ahead log, or nil when there is none.
    var walNote: String? {
        guard let wal else { return nil }
        var text = "write-ahead log: \(wal.frames) valid frame(s), \(wal.committedFrames) committed, \(wal.committedPages) page(s)"
        if wal.frames > wal.committedFrames { text += "; \(wal.frames - wal.committedFrames) frame(s) of an unfinished transaction" }
        if let pagesChangedByOpening {
            text +=
                pagesChangedByOpening > 0
                ? "; it held \(pagesChangedByOpening) page(s) not in the main file (applied to a private copy only; the originals are untouched)"
                : "; every page it holds is already in the main file"
        } else if wal.committedFrames > 0 {
            text += "; the main file may lack these pages (not checked without the key)"
        }
        return text
    }

    var json: JSONValue {
        var walValue = JSONValue.null
        if let wal {
            walValue = .object([
                "pageSize": .int(wal.pageSize), "frames": .int(wal.frames), "committedFrames": .int(wal.committedFrames),
                "committedPages": .int(wal.committedPages), "pagesNotInMainFile": .int(pagesChangedByOpening.map(Int64.init))
            ])
        }
        return .object([
            "command": .string(command),
            "ranAt": .string(TimeFormat.iso(ranAt)),
            "tool": .string(tool),
            "engine": .object(["sqlcipher": .string(engine.cipherVersion), "sqlite": .string(engine.sqliteVersion)]),
            "files": .array(files.map(\.json)),
            "wal": walValue,
            "originalsUnchanged": .bool(changedOriginals.isEmpty),
            "changedOriginals": .array(changedOriginals.map { .string($0) }),
            "method": .string("read-only copy in a private directory; the originals were read with O_RDONLY and never opened by SQLite")
        ])
    }

    func print(_ console: Console) {
        for line in lines(console) { console.line(line) }
    }

    /// The record as text lines (`export-key` prints them as SQL comments).
    func lines(_ console: Console) -> [String] {
        var lines = [console.paint("Evidence (chain of custody)", .bold)]
        var table = TextTable(indent: 2)
        table.add("command", TextTable.Cell(command))
        table.add("ran at", TextTable.Cell(TimeFormat.iso(ranAt) + " (system clock)"))
        table.add("tool", TextTable.Cell(tool))
        table.add("engine", TextTable.Cell("SQLCipher \(engine.cipherVersion.isEmpty ? "?" : engine.cipherVersion), SQLite \(engine.sqliteVersion)"))
        table.add(
            "originals",
            changedOriginals.isEmpty
                ? TextTable.Cell("unchanged (read again after the command: same digests)", .green)
                : TextTable.Cell("CHANGED during the run: \(changedOriginals.joined(separator: ", "))", .boldRed))
        if let walNote { table.add("log", TextTable.Cell(walNote, (pagesChangedByOpening ?? 0) > 0 ? .yellow : nil)) }
        lines += table.lines(console)
        var list = TextTable(indent: 2)
        list.add(TextTable.Cell("FILE", .bold), TextTable.Cell("SIZE", .bold), TextTable.Cell("MODIFIED", .bold), TextTable.Cell("SHA-256", .bold))
        for file in files {
            list.add(
                TextTable.Cell(file.path), TextTable.Cell(String(file.size)), TextTable.Cell(TimeFormat.iso(file.modified)),
                TextTable.Cell(file.sha256))
        }
        return lines + list.lines(console)
    }
}
