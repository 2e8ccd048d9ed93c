import Foundation
@testable import SessionVault
import SessionVaultTestSupport

/// Damage a history injects into the vault's files while no actor has them open: the real bytes on
/// disk, as the corruption suite damages them, each with the kind an open must report. Only damage
/// that every open reads is drawn, so the model knows the answer: the next call of any actor
/// recovers (tombstone, wipe) and answers "log in".
enum HistoryDamage: Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// One byte of page 1 flipped: its HMAC fails, the file does not open.
    case firstPage
    /// One byte of the sessions table's root page flipped (the page a launch reads).
    case sessionsPage
    /// Both slots of our header damaged, its magic kept: still provably ours, no slot valid.
    case headerSlots
    /// The database replaced by random bytes of the same size.
    case garbage

    var description: String {
        switch self {
        case .firstPage: return "a damaged page 1"
        case .sessionsPage: return "a damaged sessions page"
        case .headerSlots: return "both header slots overwritten"
        case .garbage: return "the database replaced by garbage"
        }
    }

    /// What an open of the damaged files reports, and the reason the wipe must record.
    var kind: CorruptionKind {
        switch self {
        case .firstPage, .garbage: return .notADatabase
        case .sessionsPage: return .damagedPage
        case .headerSlots: return .headerDamaged
        }
    }

    static let pageSize = Int(VaultHeader.cipherPageSize)

    /// Damages the closed vault at `files`. `seed` makes the garbage reproducible.
    func apply(to files: VaultFiles, keyPath: String, seed: UInt64) throws {
        switch self {
        case .firstPage:
            try Self.flip(files.database, at: 1_000)
        case .sessionsPage:
            try Self.flip(files.database, at: (try Self.rootPage(of: "sessions", files: files, keyPath: keyPath) - 1) * Self.pageSize + 1_000)
        case .headerSlots:
            try Self.flip(files.header, at: 40)
            try Self.flip(files.header, at: VaultHeader.slotSize + 40)
        case .garbage:
            let size = Int(FileIO.size(files.database) ?? 0)
            var rng = SeededGenerator(seed: seed)
            let bytes = (0..<max(size, Self.pageSize)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            try Data(bytes).write(to: URL(fileURLWithPath: files.database))
        }
    }

    /// XORs one byte with 0x5A and syncs it.
    private static func flip(_ path: String, at offset: Int) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        guard let byte = try handle.read(upToCount: 1)?.first else { throw DamageError.outOfRange(path, offset) }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data([byte ^ 0x5A]))
        try handle.synchronize()
    }

    /// The root page of a table, read with a keyed connection of our own (as a forensic tool with
    /// the key would), closed before the damage is done.
    private static func rootPage(of table: String, files: VaultFiles, keyPath: String) throws -> Int {
        let root = try KeyFileProvider(path: keyPath).rootKey(recorded: .stored, create: false)
        let keys = try VaultKeys(root: root.bytes)
        let connection = try Connection(path: files.database, create: false)
        defer { _ = connection.close() }
        try keys.databaseRawKey.withUnsafeBytes { try connection.key($0) }
        try connection.pinCipherSettings(pageSize: VaultHeader.cipherPageSize, kdfIterations: VaultHeader.kdfIterations)
        return Int(try connection.scalarInt("SELECT rootpage FROM sqlite_master WHERE name = ?", [.text(table)]) ?? 0)
    }

    enum DamageError: Error { case outOfRange(String, Int) }
}
