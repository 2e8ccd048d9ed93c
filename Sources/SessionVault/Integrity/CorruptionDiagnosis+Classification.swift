/// The one classifier of SQLite failures: which are damage (a taxonomy entry), which mean "not
/// now" (busy, cannot open yet) and which are operational errors. Open, write and verify paths
/// all come here; they differ only in whether a diagnosis may look closer.
extension CorruptionDiagnosis {
    /// The error to report for an SQLite failure met while opening or reading, with the most
    /// precise taxonomy entry this diagnosis finds (truncation, the damaged page).
    func classify(_ error: SQLiteError) -> VaultError {
        Self.classify(error, files: files, diagnosis: self)
    }

    /// The taxonomy entry for `error`, or nil when it is not damage (busy, out of space, ...).
    func reason(for error: SQLiteError) -> CorruptionReason? {
        finding(for: error).map { CorruptionReason($0.kind, $0.detail) }
    }

    /// `reason(for:)` as a verify finding, keeping the page and the table its text names (a
    /// reason carries only kind and text; `verify --json` must not say less than the text).
    func finding(for error: SQLiteError) -> VerificationFinding? {
        Self.finding(for: error, files: files, diagnosis: self)
    }

    /// The quick classification, for paths without the keys or the time to look closer (the
    /// write path, a verify whose own connection did not open): it reads the code and whether
    /// the write-ahead log holds frames, and opens nothing.
    static func classify(_ error: SQLiteError, files: VaultFiles) -> VaultError {
        classify(error, files: files, diagnosis: nil)
    }

    private static func classify(_ error: SQLiteError, files: VaultFiles, diagnosis: CorruptionDiagnosis?) -> VaultError {
        // The open's first read meets a full disk too (the shared-memory file is grown there):
        // that is `storageFull` on every path, not an engine error nobody can act on.
        if error.isOutOfSpace { return .storageFull(error.description) }
        if let finding = finding(for: error, files: files, diagnosis: diagnosis) {
            return .corrupted(CorruptionReason(finding.kind, finding.detail))
        }
        switch error.extendedCode {
        case .busy, .locked:
            // The extended code and the statement's first words tell a lock wait that ran out
            // from a stale snapshot or a recovery; statements bind their values, so the SQL
            // holds no secret.
            let during = error.sql.map { " during \($0.split(separator: " ").prefix(3).joined(separator: " "))" } ?? ""
            return .unavailable(retryAfter: 0.5, detail: "the database is busy in another process (code \(error.extendedCode.rawValue)\(during))")
        case .cantOpen, .permission:
            return .unavailable(retryAfter: 1, detail: "the database cannot be opened now: \(error.message)")
        default:
            return .database(error.description)
        }
    }

    /// The damage behind `error`, or nil when it is not damage. With a diagnosis, an
    /// SQLITE_CORRUPT or SQLITE_ERROR is looked at closer (truncation, a damaged page, a missing
    /// schema object); without one, only the code and the log's frames are read.
    private static func finding(for error: SQLiteError, files: VaultFiles, diagnosis: CorruptionDiagnosis?) -> VerificationFinding? {
        // Extended patterns before their primary one (see `ResultCode`'s matching).
        switch error.extendedCode {
        case .notADatabase:
            // Page 1 failed its HMAC, or is not SQLCipher's at all. Not the log's fault: its
            // frames carry checksums, and a frame that fails them is ignored, not decrypted.
            return VerificationFinding(
                kind: .notADatabase, detail: "page 1 failed authentication: the file is not a database encrypted with this key (\(error.message))",
                page: 1)
        case .ioErrorShortRead:
            return VerificationFinding(kind: .truncated, detail: "a page lies beyond the end of the file (\(error.message))")
        case .corrupt, .error:
            if let diagnosis {
                if let truncation = diagnosis.truncation() { return VerificationFinding(reason: truncation) }
                if let damaged = diagnosis.damagedPageFinding() { return damaged }
            }
            if error.code == .corrupt {
                if walHasFrames(files) {
                    return VerificationFinding(kind: .damagedWAL, detail: "\(error.message), with frames in the write-ahead log that the database cannot use")
                }
                return VerificationFinding(reason: CorruptionReason(.structuralDamage, error.message))
            }
            // SQLITE_ERROR is also what a mistake in our own SQL gives: only a schema object
            // missing from a file whose migrations all ran is damage, and only a diagnosis (the
            // open and verify paths, after the migrations) says so. Anything else stays an
            // operational error rather than being wiped as corruption.
            if diagnosis != nil, error.message.hasPrefix("no such table") || error.message.hasPrefix("no such column") {
                return VerificationFinding(kind: .structuralDamage, detail: "the schema lacks an object the migrations created: \(error.message)")
            }
            return nil
        default:
            return nil
        }
    }
}
