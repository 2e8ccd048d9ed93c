import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// A real vault in a directory of its own: SQLCipher database, header, key file. Built once with
/// a stored session, closed, then copied for each kind of damage.
final class DamageFixture: @unchecked Sendable {
    let directory: TemporaryDirectory
    var path: String { directory.file("vault.db") }
    var keyPath: String { directory.file("vault.key") }
    var keys: KeyFileProvider { KeyFileProvider(path: keyPath) }
    var files: VaultFiles { VaultFiles(database: path) }
    /// What the vault held when it was closed.
    private(set) var expected: Expected?
    /// Bytes that must not survive a wipe: the sealed tokens, the root key, the token markers.
    private(set) var secrets: [[UInt8]] = []

    /// The data a vault that opens must show, unaltered.
    struct Expected: Sendable {
        var session: Session
        var refresh: String
        var access: String
        var domainState: [UInt8]?
    }

    /// The page size every vault is written with.
    static let pageSize = Int(VaultHeader.cipherPageSize)
    /// Size of the biometric domain state stored by default: large enough that the session row
    /// spills over several overflow pages, so the suite also damages a row's last overflow page
    /// (the one SQLCipher 3.4.1 hands over zeroed without an error).
    static let largeDomainState = 9_000

    init(directory: TemporaryDirectory = TemporaryDirectory()) {
        self.directory = directory
    }

    /// A closed vault with one session: stored as pair 1, rotated `rotations` times, biometric
    /// unlock on with a domain state of `domainStateSize` bytes, and `auditRows` extra audit rows.
    static func make(rotations: Int = 2, domainStateSize: Int = largeDomainState, auditRows: Int = 0) async throws -> DamageFixture {
        let fixture = DamageFixture()
        let vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys)
        try await vault.store(TokenValues.response(1))
        for sequence in stride(from: 2, through: rotations + 1, by: 1) {
            try await vault.rotate(TokenValues.response(sequence, withIdentity: false))
        }
        if domainStateSize > 0 {
            let state = (0..<domainStateSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            try await vault.setBiometricUnlock(true, domainState: state)
        }
        for _ in 0..<auditRows { try await vault.touchAndRecord() }
        await vault.close()
        try await fixture.capture()
        return fixture
    }

    /// A copy of every file of this fixture in a new directory.
    func copy() throws -> DamageFixture {
        let twin = DamageFixture()
        for file in directory.allFiles() {
            let name = (file as NSString).lastPathComponent
            try FileManager.default.copyItem(atPath: file, toPath: twin.directory.file(name))
        }
        twin.expected = expected
        twin.secrets = secrets
        return twin
    }

    /// Records what the closed vault holds and the bytes a wipe must remove.
    func capture() async throws {
        let vault = try Vault.open(at: path, keyProvider: keys, create: false)
        if let session = try await vault.currentSession(),
            let refresh = TokenValues.text(try await vault.refreshToken()),
            let access = TokenValues.text(try await vault.accessToken())
        {
            expected = Expected(session: session, refresh: refresh, access: access, domainState: await vault.biometricDomainState())
        }
        await vault.close()
        var found: [[UInt8]] = [Array(TokenValues.refreshMarker.utf8), Array(TokenValues.accessMarker.utf8)]
        let connection = try raw()
        let statement = try connection.prepare("SELECT refresh_token, access_token FROM sessions")
        while try statement.step() {
            for column in Int32(0)...1 { if let blob = statement.blob(column), blob.count >= 32 { found.append(Array(blob.suffix(32))) } }
        }
        let keyFile = try Data(contentsOf: URL(fileURLWithPath: keyPath))
        found.append(Array(keyFile[8..<40]))
        // Union: a fixture captured again after more writes still looks for the older seals.
        secrets = Array(Set(secrets + found))
    }

    // MARK: Opening

    /// Opens without creating anything.
    func open() throws(VaultError) -> Vault {
        try Vault.open(at: path, keyProvider: keys, create: false)
    }

    /// Opens the vault and, when it opens, checks that it shows exactly the data it was closed
    /// with and runs the full verify.
    func examine() async -> Examination {
        let vault: Vault
        do {
            vault = try open()
        } catch {
            return Examination(openError: error, report: nil, dataUnaltered: nil)
        }
        var unaltered = false
        var report: VerificationReport?
        var verifyError: VaultError?
        do {
            if let expected {
                let session = try await vault.currentSession()
                let refresh = TokenValues.text(try await vault.refreshToken())
                let access = TokenValues.text(try await vault.accessToken())
                let domainState = await vault.biometricDomainState()
                unaltered =
                    session == expected.session && refresh == expected.refresh && access == expected.access
                    && domainState == expected.domainState
            }
            report = try await vault.verify()
        } catch {
            verifyError = error
        }
        await vault.close()
        return Examination(openError: verifyError, report: report, dataUnaltered: unaltered)
    }

    /// A keyed connection of our own, for damage only a keyed writer can do.
    func raw() throws -> Connection {
        let root = try keys.rootKey(recorded: .stored, create: false)
        let vaultKeys = try VaultKeys(root: root.bytes)
        let connection = try Connection(path: path, create: false)
        try vaultKeys.databaseRawKey.withUnsafeBytes { try connection.key($0) }
        try connection.pinCipherSettings(pageSize: VaultHeader.cipherPageSize, kdfIterations: VaultHeader.kdfIterations)
        return connection
    }

    /// Every file of the fixture and its bytes, lock files aside (they hold no data): compared
    /// before and after to show that nothing was deleted, truncated or overwritten.
    func contents() -> [String: Data] {
        var result: [String: Data] = [:]
        for file in directory.allFiles() where file != files.structureLock && file != files.refreshLock {
            result[(file as NSString).lastPathComponent] = FileManager.default.contents(atPath: file)
        }
        return result
    }

    /// Expects that opening (and an explicit `Vault.recover`) refuse with `.misconfigured` and
    /// leave every file exactly as it was.
    func expectRefusedUntouched(sourceLocation: SourceLocation = #_sourceLocation) async {
        let before = contents()
        let examination = await examine()
        guard case .misconfigured? = examination.openError else {
            Issue.record("expected misconfigured, got \(examination.openError.map { "\($0)" } ?? "an open vault")", sourceLocation: sourceLocation)
            return
        }
        do {
            try Vault.recover(at: path, keyProvider: keys, reason: CorruptionReason(.headerDamaged, "explicit recover in a test"))
            Issue.record("an explicit recover wiped files it cannot prove are the vault's", sourceLocation: sourceLocation)
        } catch {
            guard case .misconfigured = error else {
                Issue.record("recover: expected misconfigured, got \(error)", sourceLocation: sourceLocation)
                return
            }
        }
        #expect(contents() == before, "a file was changed, created or deleted", sourceLocation: sourceLocation)
    }

    // MARK: Damage

    /// XORs one byte of `file` (default: the database) with 0x5A.
    func flipByte(at offset: Int, in file: String? = nil) throws {
        let target = file ?? path
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: target))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        guard let byte = try handle.read(upToCount: 1)?.first else { throw DamageError.outOfRange(offset) }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data([byte ^ 0x5A]))
        try handle.synchronize()
    }

    func truncate(to size: Int, file: String? = nil) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: file ?? path))
        defer { try? handle.close() }
        try handle.truncate(atOffset: UInt64(size))
    }

    func size(of file: String? = nil) -> Int {
        Int(FileIO.size(file ?? path) ?? 0)
    }

    var pageCount: Int { size() / Self.pageSize }

    /// The root page of a table or index.
    func rootPage(of name: String) throws -> Int {
        let connection = try raw()
        return Int(try connection.scalarInt("SELECT rootpage FROM sqlite_master WHERE name = ?", [.text(name)]) ?? 0)
    }

    enum DamageError: Error { case outOfRange(Int) }
}

/// What opening (and, if it opened, verifying) a damaged vault gave.
struct Examination {
    /// The error from open (or, when it opened, from verify).
    var openError: VaultError?
    var report: VerificationReport?
    /// When it opened: whether the session, both tokens and the domain state were exactly the
    /// stored ones.
    var dataUnaltered: Bool?

    /// The corruption reported at open, if any.
    var openReason: CorruptionReason? {
        if case .corrupted(let reason)? = openError { return reason }
        return nil
    }

    /// The kind found: at open, else the first finding of verify.
    var kind: CorruptionKind? { openReason?.kind ?? report?.findings.first?.kind }

    /// The page named by the open-time reason or by the first finding.
    var page: Int? {
        if let reason = openReason { return PageScanner.pageNumber(in: reason.detail) }
        return report?.findings.first?.page
    }

    /// As a reason for `Vault.recover`.
    var reason: CorruptionReason? {
        if let openReason { return openReason }
        return report?.findings.first.map { CorruptionReason($0.kind, $0.detail) }
    }
}

extension Vault {
    /// Writes one audit row (a biometric toggle is the cheapest public write that logs one).
    func touchAndRecord() throws(VaultError) {
        try setBiometricUnlock(state.biometricPreference, domainState: biometricDomainState())
    }
}
