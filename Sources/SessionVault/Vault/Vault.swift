import Foundation
import Logging

/// The session store: one encrypted SQLCipher file, its header, and the current session.
///
/// An actor: it owns the one connection the process keeps open, and serializes every use of it.
/// Open it once per process (`Vault.open`) and keep it.
public actor Vault {
    /// The vault's files.
    public nonisolated let files: VaultFiles
    /// The policy used for expiry computations at store time and by `resumePath()`.
    public nonisolated let policy: ResumePolicy
    var keyProvider: any KeyProvider
    let clock: @Sendable () -> Date
    let logger: Logger

    /// Set when this open found a vault written in a newer SessionVault's format, moved it aside
    /// and created this fresh one in its place (the app signs in again): where it went and why.
    public nonisolated let setAside: NewerVaultFormat?
    var connection: Connection?
    var keys: VaultKeys
    var header: HeaderFile
    var state: VaultState
    var subscribers: [UUID: AsyncStream<VaultEvent>.Continuation] = [:]
    var pollTask: Task<Void, Never>?
    var lastDataVersion: Int64 = 0
    /// Latest activity not yet written (touch coalescing).
    var pendingActivity: Date?
    var lastActivityWrite: Date?
    /// The database file this vault's connection has open (see `FileIdentity`).
    var openedFileIdentity: FileIdentity?
    /// Another process replaced or wiped the file; the vault reopens before its next use.
    var replacedElsewhere = false
    /// This vault's handle on `files.structureLock` (see `holdStableFile`).
    var structureLock: FileLock?
    var wipedElsewhere = false

    /// Opens the vault at `path`, creating it (and, with a key file provider, its key) when absent.
    ///
    /// - Throws: `.corrupted(reason)` when the store cannot be trusted (call `Vault.recover`),
    ///   `.unavailable` when the key cannot be read right now (retry; nothing is touched), other
    ///   cases for operational failures.
    ///
    /// `logger`: where the vault logs (never a token); nil: nothing is logged.
    public static func open(
        at path: String, keyProvider: any KeyProvider, policy: ResumePolicy = ResumePolicy(),
        clock: @escaping @Sendable () -> Date = { Date() },
        logger: Logger? = nil, create: Bool = true
    ) throws(VaultError) -> Vault {
        let logger = logger ?? Vault.silentLogger
        let files = VaultFiles(database: path)
        do {
            let opened = try VaultOpener(files: files, keyProvider: keyProvider, now: clock(), create: create).open()
            // Read right after the open: a replacement after this moment is seen on the next call.
            return Vault(
                files: files, keyProvider: keyProvider, policy: policy, clock: clock, logger: logger, opened: opened,
                identity: FileIdentity.of(files.database))
        } catch {
            guard case .newerFormat(let format) = error else { throw error }
            // A newer SessionVault's format this library cannot read: not damage, so nothing is
            // wiped. Without `create` (tools, a look before deciding) it is only reported and
            // nothing moves. With `create` (the app's open) the files move aside under a name
            // that says why, for a later upgrade, and the app gets a fresh vault at the same path.
            guard create else { throw .newerFormat(format) }
            let setAsideAt = try VaultSetAside.setAside(files, readableSince: format.readableSince)
            let moved = NewerVaultFormat(readableSince: format.readableSince, newestKnown: format.newestKnown, setAsideAt: setAsideAt)
            logger.warning(
                "vault from a newer SessionVault set aside",
                metadata: [
                    "vault.readable_since": "\(moved.readableSince)", "vault.newest_known": "\(moved.newestKnown)"
                ])
            let opened = try VaultOpener(files: files, keyProvider: keyProvider, now: clock(), create: true).open()
            return Vault(
                files: files, keyProvider: keyProvider, policy: policy, clock: clock, logger: logger, opened: opened,
                identity: FileIdentity.of(files.database), setAside: moved)
        }
    }

    /// Vaults at `path` that an older library set aside because a newer SessionVault wrote them
    /// (see `VaultError.newerFormat`): each directory holds the vault's files under their own
    /// names, with the schema version that can read them. A version that can may move one back.
    public static func setAsideVaults(at path: String) -> [(path: String, readableSince: Int)] {
        VaultSetAside.find(VaultFiles(database: path))
    }

    private init(
        files: VaultFiles, keyProvider: any KeyProvider, policy: ResumePolicy, clock: @escaping @Sendable () -> Date,
        logger: Logger, opened: sending VaultOpener.Opened, identity: FileIdentity?, setAside: NewerVaultFormat? = nil
    ) {
        self.files = files
        self.setAside = setAside
        self.keyProvider = keyProvider
        self.policy = policy
        self.clock = clock
        self.logger = logger
        self.connection = opened.connection
        self.keys = opened.keys
        self.header = opened.header
        self.state = opened.state
        self.openedFileIdentity = identity
        self.lastDataVersion = opened.state.dataVersion
    }

    /// A logger that drops everything, used when the caller passes none: the library never
    /// bootstraps logging itself.
    package static let silentLogger = Logger(label: "SessionVault", factory: { _ in SwiftLogNoOpLogHandler() })

    // MARK: Reading

    /// What `ResumeDecision.decide` needs. Notices changes committed by another process first.
    public func snapshot() throws(VaultError) -> VaultSnapshot {
        try reloadIfChangedElsewhere()
        return state.snapshot
    }

    /// The resume path right now, under this vault's policy and clock.
    public func resumePath() throws(VaultError) -> ResumePath {
        ResumeDecision.decide(try snapshot(), now: clock(), policy: policy)
    }

    /// The current session, redacted (tokens only as fingerprints); nil when signed out.
    public func currentSession() throws(VaultError) -> Session? {
        try reloadIfChangedElsewhere()
        return state.current?.session
    }

    /// The current refresh token: the one call an app (or a `SessionRefresher`) uses to send it
    /// to its server. Nil when there is no session.
    public func refreshToken() throws(VaultError) -> Token? {
        try reloadIfChangedElsewhere()
        return state.tokens.refresh
    }

    /// The cached access token, for the app's API calls. Nil when none is cached.
    public func accessToken() throws(VaultError) -> Token? {
        try reloadIfChangedElsewhere()
        return state.tokens.access
    }

    /// The biometric domain state recorded when biometric unlock was enabled (opaque bytes from
    /// the platform), to notice a changed enrolment.
    package func biometricDomainState() -> [UInt8]? { state.current?.biometricDomainState }

    /// The header's record: generation and key check value (public values, for the CLI).
    package var generation: UInt64 { state.generation }

    /// The key provider the vault is open with (it changes with `rekey`).
    var currentKeyProvider: any KeyProvider { keyProvider }

    /// Closes the connection after writing any coalesced activity. Further calls throw `.closed`.
    public func close() {
        try? flushActivity()
        pollTask?.cancel()
        pollTask = nil
        for continuation in subscribers.values { continuation.finish() }
        subscribers.removeAll()
        dropConnection()
        replacedElsewhere = false
    }

    /// Closes the connection. When the file it reads is no longer the one at the path (another
    /// process wiped or replaced it), the close must not delete `-wal` and `-shm` by name: they
    /// belong to the new file now (see `Connection.keepLogFilesOnClose`).
    func dropConnection() {
        if let connection, FileIdentity.of(files.database) != openedFileIdentity { connection.keepLogFilesOnClose() }
        connection = nil
    }

    func liveConnection() throws(VaultError) -> Connection {
        guard let connection else {
            throw replacedElsewhere ? .unavailable(retryAfter: 1, detail: "the vault was replaced by another process and is not reopened yet") : .closed
        }
        return connection
    }
}
