import Foundation
@testable import SessionVault
import SessionVaultTestSupport

/// What a copy of a vault's files gives back to someone who also has its key: every state the
/// write-ahead log can be replayed to, each opened with the raw key, every session row's sealed
/// tokens opened with the field key.
///
/// Why replay instead of grepping: the pages are encrypted, so a token never appears in the
/// files as bytes. An older frame of the log still holds an older version of a page, and the
/// log cut after that frame's commit is a database SQLite (and anyone with the key) reads as of
/// that commit.
enum VaultResidue {
    static let walHeaderSize = 32
    static let frameHeaderSize = 24
    static let pageSize = Int(VaultHeader.cipherPageSize)

    /// Copies the database and its log (when there is one) into a new directory; the vault may
    /// still be open in this or another process.
    static func copyAside(_ files: VaultFiles) throws -> TemporaryDirectory {
        let copy = TemporaryDirectory("residue")
        try FileManager.default.copyItem(atPath: files.database, toPath: copy.file("vault.db"))
        if FileManager.default.fileExists(atPath: files.wal) {
            try FileManager.default.copyItem(atPath: files.wal, toPath: copy.file("vault.db-wal"))
        }
        return copy
    }

    /// Frames in the copied log.
    static func frameCount(_ copy: TemporaryDirectory) -> Int {
        let size = Int(FileIO.size(copy.file("vault.db-wal")) ?? 0)
        return size <= walHeaderSize ? 0 : (size - walHeaderSize) / (frameHeaderSize + pageSize)
    }

    /// How many of `tokens` open from any session row of any state of the copy: the database
    /// alone, then the database with the log cut after each commit frame. Never prints a token.
    static func recoverable(_ tokens: [String], copy: TemporaryDirectory, keyFile: String) throws -> Int {
        let keys = try VaultKeys(root: try KeyFileProvider(path: keyFile).rootKey(recorded: .stored, create: false).bytes)
        let log = FileManager.default.contents(atPath: copy.file("vault.db-wal")).map { [UInt8]($0) } ?? []
        // Log lengths to replay: none, then the end of every commit frame (its header's
        // "database size after commit" field, bytes 4..<8, is non-zero).
        var cuts = [0]
        var offset = walHeaderSize
        while offset + frameHeaderSize + pageSize <= log.count {
            let committedSize = log[(offset + 4)..<(offset + 8)].reduce(0) { $0 << 8 | Int($1) }
            offset += frameHeaderSize + pageSize
            if committedSize != 0 { cuts.append(offset) }
        }
        var found = Set<Int>()
        for cut in cuts {
            let state = TemporaryDirectory("residue-state")
            try FileManager.default.copyItem(atPath: copy.file("vault.db"), toPath: state.file("vault.db"))
            if cut > 0 { try Data(log.prefix(cut)).write(to: URL(fileURLWithPath: state.file("vault.db-wal"))) }
            for (index, token) in tokens.enumerated() where try opens(token, in: state.file("vault.db"), keys: keys) {
                found.insert(index)
            }
        }
        return found.count
    }

    /// Whether `token` is the plaintext of any sealed token of any session row of the file.
    private static func opens(_ token: String, in database: String, keys: VaultKeys) throws -> Bool {
        let connection = try Connection(path: database, create: false)
        try keys.databaseRawKey.withUnsafeBytes { try connection.key($0) }
        try connection.pinCipherSettings(pageSize: VaultHeader.cipherPageSize, kdfIterations: VaultHeader.kdfIterations)
        // A state before the first migration committed (the database file alone while every
        // page is still in the log) has no sessions table: no token there.
        guard try connection.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'sessions'") == 1 else { return false }
        let statement = try connection.prepare("SELECT id, token_version, refresh_token, access_token FROM sessions")
        let wanted = Array(token.utf8)
        while try statement.step() {
            guard let id = statement.text(0) else { continue }
            let version = statement.int64(1)
            for (column, index) in [(TokenColumn.refreshToken, Int32(2)), (.accessToken, 3)] {
                guard let sealed = statement.blob(index),
                    let plain = try? FieldCipher.open(sealed, key: keys.fieldKey, associatedData: column.associatedData(sessionID: id, tokenVersion: version))
                else { continue }
                if plain.withUnsafeBytes({ Array($0) == wanted }) { return true }
            }
        }
        return false
    }
}
