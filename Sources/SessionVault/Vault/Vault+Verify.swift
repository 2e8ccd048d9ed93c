import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

extension Vault {
    /// Full scan of this vault: reads every page (each page's HMAC is checked), runs
    /// `PRAGMA integrity_check`, checks the migration history, opens every sealed token of every
    /// session row and checks the state row and the generation against the header. Linear in
    /// the file's pages; changes nothing.
    ///
    /// The open-time check is cheap on purpose (it reads only what the launch needs); this is
    /// the one that finds a damaged page no launch reads, e.g. in the audit log or a free page.
    /// - Returns: a report; `intact` when nothing was found. Damage is a finding, not an error.
    /// - Throws: `.closed` after `close()`, `.unavailable` when the file is busy, other cases
    ///   for operational failures.
    public func verify() throws(VaultError) -> VerificationReport {
        // The files first: another process may have replaced them (a rekey, a recovery) since
        // this connection last looked, and a scan of the new file with this connection's old
        // key reads every page as damaged. Reopened through the key provider, it scans what
        // is there with the key that opens it.
        try reloadIfChangedElsewhere()
        _ = try liveConnection()
        // The header on disk may be newer than ours when another process shares the vault.
        // Read it before the database: writers commit first and record the generation after.
        let onDisk = (try? HeaderFile.read(at: files.header))??.generation
        let recorded = max(onDisk ?? 0, header.current.generation)
        return try VaultVerifier(files: files, keys: keys, headerGeneration: recorded).run()
    }

    /// Verifies the vault at `path` without an open `Vault` (for tools such as the CLI): opens it
    /// the way `open` does (without creating anything), then runs the full scan.
    ///
    /// Damage found by the open-time check is returned as the report's first finding rather
    /// than thrown; when the key is right, the full scan then runs too and adds what else it
    /// finds (findings of the same kind as the open-time one are not repeated: the open-time one
    /// takes the page, table and session where the scan located that damage).
    /// - Throws: `.io` (ENOENT) when there is no vault at `path`; `.unavailable` when the key
    ///   cannot be read right now; `.corrupted(.wrongKey)` and `.corrupted(.keyMissing)` are
    ///   returned as findings too, since they say nothing about the file's pages.
    package static func verify(at path: String, keyProvider keys: any KeyProvider, now: Date = Date()) throws(VaultError) -> VerificationReport {
        let files = VaultFiles(database: path)
        guard FileIO.exists(files.database) else {
            throw .io(FileIOError(operation: "stat", path: files.database, errno: ENOENT))
        }
        let started = ContinuousClock.now
        let opener = VaultOpener(files: files, keyProvider: keys, now: now, create: false)
        let openTimeReason: CorruptionReason
        do {
            let opened = try opener.open()
            let report = try VaultVerifier(files: files, keys: opened.keys, headerGeneration: opened.header.current.generation).run()
            // The opened connection stays open during the scan, so the scan's own read-only
            // connection is never the last one and never needs to checkpoint.
            withExtendedLifetime(opened) {}
            return report
        } catch {
            guard case .corrupted(let reason) = error else { throw error }
            openTimeReason = reason
        }
        var first = VerificationFinding(reason: openTimeReason)
        var scanned: [VerificationFinding] = []
        var pagesScanned = 0
        // With the right key the pages can still be scanned: the full report says whether the
        // damage the open found is all there is. Without it (or without pages) nothing more
        // can be read.
        let unreadable: Set<CorruptionKind> = [.keyMissing, .wrongKey, .headerDamaged, .notADatabase, .truncated]
        if !unreadable.contains(openTimeReason.kind), let unlocked = try? opener.unlock() {
            if let report = try? VaultVerifier(files: files, keys: unlocked.keys, headerGeneration: unlocked.header.generation).run() {
                // The open only says what it met, in words; the scan finds the same damage and
                // knows where it is (page, table, session): the first finding gets that place.
                if let located = report.findings.first(where: { $0.kind == first.kind && (first.page == nil || $0.page == first.page) }) {
                    first.page = located.page ?? first.page
                    first.table = located.table ?? first.table
                    first.sessionID = located.sessionID ?? first.sessionID
                }
                scanned = report.findings.filter { $0.kind != openTimeReason.kind }
                pagesScanned = report.pagesScanned
            }
        }
        let findings = [first] + scanned
        let elapsed = started.duration(to: .now)
        return VerificationReport(
            pagesScanned: pagesScanned, findings: findings,
            elapsed: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}
