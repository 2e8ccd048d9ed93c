import Foundation
import SessionVault
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// The workloads of the crash-state explorer (Tests/CrashStateTests). Each one has a setup, run
/// untraced, and a run, traced by the explorer's LD_PRELOAD recorder; the explorer snapshots the
/// directory in between. The run writes a mark into the recorder's log (CRASH_STATES_LOG) before
/// each step and after each step returns: `done <k> <observation>` says what the vault must hold
/// once step k returned, in the words the explorer's checker uses (`session#<n> bio=<0|1>`, or
/// `none`; the rekey workload adds ` key=old|new`). Sequence numbers only, never a token.
///
/// Files, all in the directory: `vault.db` (and its side files), the key file `vault.key`, and
/// for rekey the new key file `vault-new.key`.
enum CrashWorkload: String, CaseIterable {
    case creation, store, rotate, signOut = "sign-out", biometric, rekey, wipe, recovery

    struct Files {
        let directory: String
        var database: String { directory + "/vault.db" }
        var key: KeyFileProvider { KeyFileProvider(path: directory + "/vault.key") }
        var newKey: KeyFileProvider { KeyFileProvider(path: directory + "/vault-new.key") }
    }

    /// Brings the directory to the state the run starts from.
    func setUp(_ files: Files) async throws {
        guard self != .creation else { return }
        let vault = try Vault.open(at: files.database, keyProvider: files.key)
        _ = try await vault.store(tokens(1))
        await vault.close()
        if self == .recovery {
            // A damaged first page: the next open answers corrupted (not a database), the header
            // and the key still prove the files ours, so the recovery wipes.
            let fd = open(files.database, O_WRONLY)
            guard fd >= 0 else { throw POSIXError(.EIO) }
            let garbage = [UInt8](repeating: 0xA5, count: 4096)
            let written = garbage.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            fsync(fd)
            close(fd)
            guard written == garbage.count else { throw POSIXError(.EIO) }
        }
    }

    /// The traced steps, with a mark before and after each one.
    func run(_ files: Files, marks: MarkLog) async throws {
        let tag = self == .rekey ? " key=old" : ""
        switch self {
        case .creation:
            marks.done(0, "none")
            marks.begin(1, "open")
            let vault = try Vault.open(at: files.database, keyProvider: files.key)
            marks.done(1, "none")
            marks.begin(2, "store")
            _ = try await vault.store(tokens(1))
            marks.done(2, "session#1 bio=0")
            await vault.close()

        case .recovery:
            marks.done(0, "none")
            marks.begin(1, "resume")
            let manager = ResumeManager(path: files.database, keyProvider: files.key, refresher: NoRefresher())
            let outcome = await manager.resume()
            guard case .login(.wipedAfterCorruption, _) = outcome else { throw Unexpected(what: "recovery answered \(outcome)") }
            marks.done(1, "none")

        default:
            marks.done(0, "session#1 bio=0" + tag)
            marks.begin(1, "open")
            let vault = try Vault.open(at: files.database, keyProvider: files.key)
            marks.done(1, "session#1 bio=0" + tag)
            switch self {
            case .store:
                marks.begin(2, "store")
                _ = try await vault.store(tokens(2))
                marks.done(2, "session#2 bio=0")
            case .rotate:
                for step in 2...4 {
                    marks.begin(step, "rotate")
                    try await vault.rotate(tokens(step))
                    marks.done(step, "session#\(step) bio=0")
                }
            case .signOut:
                marks.begin(2, "sign-out")
                try await vault.signOut()
                marks.done(2, "none")
            case .biometric:
                marks.begin(2, "biometric")
                try await vault.setBiometricUnlock(true)
                marks.done(2, "session#1 bio=1")
            case .rekey:
                marks.begin(2, "rekey")
                try await vault.rekey(to: files.newKey)
                marks.done(2, "session#1 bio=0 key=new")
            case .wipe:
                marks.begin(2, "wipe")
                try await vault.wipe()
                marks.done(2, "none")
                return
            case .creation, .recovery:
                break
            }
            await vault.close()
        }
    }

    /// The pair for sequence `n`: refresh `R-<n>`, access `A-<n>`, an hour to live.
    func tokens(_ sequence: Int) throws -> TokenResponse {
        TokenResponse(
            accessToken: try Token("A-\(sequence)"), expiresIn: 3600, refreshToken: try Token("R-\(sequence)"), identity: SessionIdentity(subject: "crash-user")
        )
    }

    struct Unexpected: Error, CustomStringConvertible {
        let what: String
        var description: String { what }
    }
}

/// A refresher that is never reached in these workloads (every session is valid); if it were,
/// it answers as an unreachable server would, which spends nothing.
struct NoRefresher: SessionRefresher {
    func refresh(using refreshToken: Token) async throws(RefreshError) -> RefreshedTokens {
        throw .network("the crash workloads have no server")
    }
}

/// The marks the run writes into the recorder's log: the same file, opened for appending, so
/// each mark lands between the calls it separates (one write per mark).
final class MarkLog {
    private let descriptor: Int32

    init(path: String) throws {
        descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
    }

    deinit { close(descriptor) }

    func begin(_ step: Int, _ name: String) { mark("begin \(step) \(name)") }
    func done(_ step: Int, _ observation: String) { mark("done \(step) \(observation)") }

    private func mark(_ label: String) {
        let payload = Array(label.utf8)
        let bytes = Array("mark 0 0 \(payload.count) -\n".utf8) + payload
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    }
}
