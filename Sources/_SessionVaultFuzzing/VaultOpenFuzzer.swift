import Foundation
import SessionVault
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// The vault-open target's fixture and its check.
///
/// Made once per process, for real: a key file, a vault signed in and closed (its main file
/// holds pair 1), reopened and rotated to pair 2 with the files read while it is still open,
/// so the copy holds a hot write-ahead log whose last commit is the only place pair 2 lives
/// (as a device image of a running app holds it). That copy opened unchanged must answer
/// `valid` with pair 2: the committed session. Each input is then applied as mutations
/// (`VaultMutation`) to a fresh copy of database, log and header (key and generation record
/// untouched), which is opened as `Vault.open(create: false)` opens it.
///
/// What must hold: the open answers a typed path or a typed error, never a trap or a hang; an
/// open that refuses the vault leaves its database and write-ahead log byte for byte; a
/// path that carries a session carries exactly the committed one (same session, version,
/// flags, and the same token bytes); and it never answers `missing`: the committed state has a
/// session, and no older state of these files lacks one. A mutation of bytes the open does not
/// use (a frame past the last commit, free space) may be ignored: that is why a `valid` answer
/// is judged by what it carries, not by whether the bytes changed.
final class VaultOpenFuzzer: @unchecked Sendable {
    // @unchecked: libFuzzer runs one input at a time on one thread; `outcomes` is only touched
    // there and, at exit, by the same process after fuzzing stopped.
    private struct Committed {
        let session: Session
        let refresh: [UInt8]
        let access: [UInt8]
    }

    /// The fixture's file contents, by the suffix they sit under.
    private let template: [(suffix: String, bytes: [UInt8])]
    private let work: String
    /// How often each answer came (path or error case, never a secret), for the run's report.
    private(set) var outcomes: [String: Int] = [:]

    static let shared: Result<VaultOpenFuzzer, any Error> = Result { try VaultOpenFuzzer() }

    /// File suffixes of the copy, relative to `<dir>/vault.db` and `<dir>/vault.key`.
    private static let databaseName = "vault.db"
    private static let keyName = "vault.key"

    private init() throws {
        let scratch = FuzzScratch.shared
        let made = scratch.path("vault-template")
        work = scratch.path("vault-work")
        for directory in [made, work] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let database = (made as NSString).appendingPathComponent(Self.databaseName)
        let keyPath = (made as NSString).appendingPathComponent(Self.keyName)
        let provider = try KeyFileProvider.create(at: keyPath)
        let files = VaultFiles(database: database)
        let sources: [(String, String)] = [
            ("db", database), ("wal", files.wal), ("header", files.header),
            ("key", keyPath), ("generation", provider.generationRecordPath)
        ]
        let captured = FuzzAwait.run { () async throws -> [[UInt8]?] in
            let first = try Vault.open(at: database, keyProvider: provider)
            try await first.store(Self.response(1, identity: SessionIdentity(subject: "fuzz-user", email: "fuzz@example.org")))
            await first.close()
            let holder = try Vault.open(at: database, keyProvider: provider, create: false)
            try await holder.rotate(Self.response(2, identity: nil))
            // Read while the vault is still open: its close would checkpoint the log away.
            let bytes = sources.map { try? FileIO.read($0.1) }
            await holder.close()
            return bytes
        }
        let contents = try captured.get()
        var template: [(suffix: String, bytes: [UInt8])] = []
        for (source, bytes) in zip(sources, contents) {
            guard let bytes else {
                if source.0 == "generation" { continue }
                throw FuzzSetupError(detail: "the fixture has no \(source.0) file")
            }
            template.append((source.0, bytes))
        }
        guard let wal = template.first(where: { $0.suffix == "wal" }), wal.bytes.count > Int(CorruptionDiagnosis.walHeaderSize) else {
            throw FuzzSetupError(detail: "the fixture's write-ahead log holds no frames")
        }
        self.template = template
        try? FileManager.default.removeItem(atPath: made)

        // The committed state: the unchanged copy, opened the same way every input is.
        let baseline = try openCopy(mutations: [])
        guard case .valid(let session) = baseline.path, session.tokenVersion == 2, let refresh = baseline.refresh, let access = baseline.access,
            refresh == Array(Self.refresh(2).utf8), access == Array(Self.access(2).utf8)
        else {
            throw FuzzSetupError(
                detail: "the unchanged copy did not open as valid with the rotated session (\(baseline.path.map { "\($0)" } ?? baseline.outcome))")
        }
        committedValue = Committed(session: session, refresh: refresh, access: access)
    }

    /// Set last in `init`, from the unchanged copy.
    private var committedValue: Committed?

    private static func refresh(_ pair: Int) -> String { "fuzz-refresh-\(pair)-5c1a7e" }
    private static func access(_ pair: Int) -> String { "fuzz-access-\(pair)-5c1a7e" }

    private static func response(_ pair: Int, identity: SessionIdentity?) throws -> TokenResponse {
        TokenResponse(accessToken: try Token(access(pair)), expiresIn: 3600, refreshToken: try Token(refresh(pair)), identity: identity)
    }

    private struct Answer {
        var path: ResumePath?
        var refresh: [UInt8]?
        var access: [UInt8]?
        var outcome: String
        /// Files an open that refused the vault changed anyway.
        var changedOnRefusal: [String] = []
    }

    /// A fresh copy with `mutations` applied, opened; the connection is closed on return.
    private func openCopy(mutations: [VaultMutation]) throws -> Answer {
        if let leftovers = try? FileManager.default.contentsOfDirectory(atPath: work) {
            for name in leftovers { unlink((work as NSString).appendingPathComponent(name)) }
        }
        let database = (work as NSString).appendingPathComponent(Self.databaseName)
        let keyPath = (work as NSString).appendingPathComponent(Self.keyName)
        let files = VaultFiles(database: database)
        let provider = KeyFileProvider(path: keyPath)
        var written: [String: [UInt8]] = [:]
        for (suffix, original) in template {
            var bytes = original
            let target: String
            switch suffix {
            case "db": target = files.database; mutations.filter { $0.file == .database }.forEach { $0.apply(to: &bytes) }
            case "wal": target = files.wal; mutations.filter { $0.file == .wal }.forEach { $0.apply(to: &bytes) }
            case "header": target = files.header; mutations.filter { $0.file == .header }.forEach { $0.apply(to: &bytes) }
            case "key": target = keyPath
            default: target = provider.generationRecordPath
            }
            guard FuzzScratch.shared.put(bytes, at: target) else { throw FuzzSetupError(detail: "could not write the copy's \(suffix)") }
            written[target] = bytes
        }
        let now = Date()
        do {
            let opened = try VaultOpener(files: files, keyProvider: provider, now: now, create: false).open()
            let path = ResumeDecision.decide(opened.state.snapshot, now: now, policy: ResumePolicy())
            return Answer(
                path: path,
                refresh: opened.state.tokens.refresh.map { $0.withRevealedBytes { Array($0) } },
                access: opened.state.tokens.access.map { $0.withRevealedBytes { Array($0) } },
                outcome: path.name + (path.reason.isEmpty ? "" : "(\(path.reason))"))
        } catch {
            var answer = Answer(path: nil, refresh: nil, access: nil, outcome: Self.name(of: error))
            // A refused vault is left as it was found: above all, its write-ahead log is never
            // checkpointed into the main file (the evidence the next open and the CLI read).
            for target in [files.database, files.wal] {
                guard let before = written[target] else { continue }
                let after = try? FileIO.read(target)
                if after != before {
                    answer.changedOnRefusal.append(
                        "\(target == files.wal ? "wal" : "db") (\(before.count) bytes, now \(after.map { "\($0.count)" } ?? "gone"))")
                }
            }
            return answer
        }
    }

    /// The error's case (and corruption kind), never its text: that may name paths and numbers.
    private static func name(of error: VaultError) -> String {
        switch error {
        case .corrupted(let reason): return "corrupted(\(reason.kind.rawValue))"
        case .database: return "database"
        case .newerFormat: return "newerFormat"
        case .unavailable: return "unavailable"
        case .misconfigured: return "misconfigured"
        case .otherKey: return "otherKey"
        case .keyProvider: return "keyProvider"
        case .notSQLCipher: return "notSQLCipher"
        case .storageFull: return "storageFull"
        case .io: return "io"
        case .crypto: return "crypto"
        case .invalidTokenResponse: return "invalidTokenResponse"
        case .noSession: return "noSession"
        case .staleSession: return "staleSession"
        case .closed: return "closed"
        case .invalidArgument: return "invalidArgument"
        case .internalFault: return "internalFault"
        case .subjectMismatch: return "subjectMismatch"
        case .changedElsewhere: return "changedElsewhere"
        }
    }

    func run(_ input: [UInt8]) -> String? {
        guard let committed = committedValue else { return "setup: no committed state" }
        let answer: Answer
        do { answer = try openCopy(mutations: VaultMutation.parse(input)) } catch { return "\(error)" }
        outcomes[answer.outcome, default: 0] += 1
        if !answer.changedOnRefusal.isEmpty {
            return "\(answer.outcome) but the open changed the copy's \(answer.changedOnRefusal.joined(separator: " and "))"
        }
        guard let path = answer.path else { return nil }
        if case .missing = path { return "a mutated copy of a signed-in vault answered \(path.name)(\(path.reason))" }
        if let session = path.session {
            guard session == committed.session else { return "\(path.name) with a session that is not the committed one (version \(session.tokenVersion))" }
            guard answer.refresh == committed.refresh, answer.access == committed.access else {
                return "\(path.name) with the committed session but other token bytes"
            }
        }
        return nil
    }
}
