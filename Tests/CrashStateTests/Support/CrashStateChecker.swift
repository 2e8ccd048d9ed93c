import Foundation
import SessionVault
import SessionVaultTestSupport

/// Opens one crash state with the library and with the CLI, each on a private copy, and says
/// which rules it breaks:
/// - corrupted: the app or the CLI answers `corrupted` (and the app would wipe) although the
///   workload destroys nothing (only unsynced data was lost). Wipe and recovery may pass through
///   a corrupted state, which must then recover to the after.
/// - stuck: the app answers `unavailable` twice in a row (a second launch), or a sign-in on the
///   vault it is left with fails: a state no call can leave.
/// - lost a write: the vault holds what it held before a step that had already returned.
/// - neither before nor after: what the vault holds is not the state before the step in progress
///   nor after it.
/// - CLI disagrees: `sessionvault resume --dry-run` decides another path than the app's open.
struct CrashStateChecker: Sendable {
    let workload: String
    let cli: String

    /// The workloads allowed to pass through `corrupted` (they destroy the vault on purpose).
    var destroys: Bool { workload == "wipe" || workload == "recovery" }

    /// What the workload's marks say about a crash point.
    struct Expectation: Sendable {
        /// Observations after each step that had returned, oldest first (index = step).
        var returned: [String]
        /// The observation after the step in progress, if one had begun.
        var inProgress: String?
        var stepInProgress: String?
    }

    static func expectation(_ trace: Trace, at point: Int) -> Expectation {
        var returned: [String] = []
        var all: [Int: String] = [:]
        var begun: (Int, String)?
        for (index, step) in trace.steps.enumerated() {
            guard case .mark(let label) = step else { continue }
            let parts = label.split(separator: " ", maxSplits: 2).map(String.init)
            guard parts.count == 3, let number = Int(parts[1]) else { continue }
            if parts[0] == "done" {
                all[number] = parts[2]
                if index < point { returned.append(parts[2]) }
            } else if parts[0] == "begin", index < point {
                begun = (number, parts[2])
            }
        }
        var expectation = Expectation(returned: returned, inProgress: nil, stepInProgress: nil)
        if let (number, name) = begun, number >= returned.count {
            expectation.inProgress = all[number]
            expectation.stepInProgress = "\(number) (\(name))"
        }
        return expectation
    }

    /// The answers for one state and the rules it breaks (empty: it passes).
    struct Verdict: Sendable {
        var cliPath = ""
        var appPath = ""
        var outcome = ""
        var observation = ""
        /// The key file the app used (the new one after a rekey that reached its switch point).
        var keyName = "vault.key"
        var failures: [String] = []
    }

    func check(_ files: [String: [UInt8]?], expectation: Expectation, scratch: String) async -> Verdict {
        var verdict = Verdict()
        let appDirectory = scratch + "/app", cliDirectory = scratch + "/cli"
        do {
            for directory in [appDirectory, cliDirectory] {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                try CrashStateBuilder.write(files, into: directory)
            }
        } catch {
            verdict.failures.append("setup: could not write the state (\(error))")
            return verdict
        }
        defer { try? FileManager.default.removeItem(atPath: scratch) }

        // The key the app uses: after a rekey the new one, if that key opens the vault.
        let database = appDirectory + "/vault.db"
        var keyName = "vault.key", keyTag = ""
        if workload == "rekey" {
            keyTag = " key=old"
            if files["vault-new.key"] != nil, case .opened = await Self.probe(database, KeyFileProvider(path: appDirectory + "/vault-new.key")) {
                keyName = "vault-new.key"
                keyTag = " key=new"
            }
        }
        let keys = KeyFileProvider(path: appDirectory + "/" + keyName)
        verdict.keyName = keyName

        // The CLI, on its own copy, before the app touches anything.
        verdict.cliPath = await cliAnswer(cliDirectory + "/vault.db", key: cliDirectory + "/" + keyName, scratch: scratch)

        // The app: its open decides the path; the manager then acts on it (recovers, goes home).
        let (path, reason) = await Self.appPath(database, keys)
        verdict.appPath = path + (reason.isEmpty ? "" : "(\(reason))")
        if path == "corrupted" && !destroys {
            verdict.failures.append("corrupted: the app's open answers corrupted(\(reason)) and would wipe, after a crash that only lost unsynced data")
        }
        let cliName = verdict.cliPath.split(separator: "(").first.map(String.init) ?? verdict.cliPath
        if cliName != path || (path == "corrupted" && verdict.cliPath != verdict.appPath) {
            verdict.failures.append("CLI disagrees: sessionvault resume --dry-run says \(verdict.cliPath), the app's open \(verdict.appPath)")
        }
        var outcome = await ResumeManager(path: database, keyProvider: keys, refresher: UnreachableServer()).resume()
        verdict.outcome = Self.name(outcome)
        if case .unavailable = outcome {
            // A second launch: an unavailable that no call can leave is a brick.
            outcome = await ResumeManager(path: database, keyProvider: keys, refresher: UnreachableServer()).resume()
            if case .unavailable(_, let detail) = outcome {
                verdict.failures.append("stuck: unavailable on two launches in a row (\(detail))")
            }
        }
        if case .login(.wipedAfterCorruption(let kind), _) = outcome, !destroys {
            verdict.failures.append("corrupted: the app wiped the vault (\(kind.rawValue)) after a crash that only lost unsynced data")
        }

        // What the vault holds now, then a sign-in on it.
        do {
            let vault = try Vault.open(at: database, keyProvider: keys)
            switch try await vault.snapshot() {
            case .session(let session, _, _):
                let text: String? = try await vault.refreshToken()?.withRevealedBytes { String(decoding: $0, as: UTF8.self) }
                let sequence = text.flatMap { $0.hasPrefix("R-") ? Int($0.dropFirst(2)) : nil }
                verdict.observation = "session#\(sequence.map(String.init) ?? "?") bio=\(session.biometricEnabled ? 1 : 0)" + keyTag
            case .empty:
                verdict.observation = "none"
            case .corrupted(let reason):
                verdict.observation = "corrupted(\(reason.kind.rawValue))"
            case .unavailable(_, let detail):
                verdict.observation = "unavailable(\(detail))"
            }
            do {
                _ = try await vault.store(
                    TokenResponse(
                        accessToken: try Token("A-900"), expiresIn: 3600, refreshToken: try Token("R-900"), identity: SessionIdentity(subject: "crash-user")))
                let after = try await vault.resumePath()
                if after.name != "valid" { verdict.failures.append("stuck: a sign-in on this state leads to \(after.name), not valid") }
            } catch {
                verdict.failures.append("stuck: a sign-in on this state fails (\(error))")
            }
            await vault.close()
        } catch {
            verdict.observation = "open failed"
            verdict.failures.append("stuck: after the resume the vault does not open (\(error)); no sign-in is possible")
        }

        // Before or after of the step in progress; never older than a step that returned.
        var allowed = expectation.returned.suffix(1)
        if let next = expectation.inProgress { allowed.append(next) }
        if !allowed.contains(verdict.observation) && !verdict.observation.hasPrefix("open failed") {
            if let lost = expectation.returned.dropLast().lastIndex(of: verdict.observation) {
                verdict.failures.append(
                    "lost a write: the vault holds \(verdict.observation), the state before step \(lost + 1), "
                        + "although steps up to \(expectation.returned.count - 1) had returned (expected \(allowed.joined(separator: " or ")))")
            } else {
                verdict.failures.append(
                    "neither before nor after: the vault holds \(verdict.observation); step \(expectation.stepInProgress ?? "none") "
                        + "allows \(allowed.joined(separator: " or "))")
            }
        }
        return verdict
    }

    enum Probe { case opened, refused(String) }

    /// Whether `keys` opens the vault (read only: the open of an existing vault with a wrong key
    /// changes nothing).
    static func probe(_ database: String, _ keys: KeyFileProvider) async -> Probe {
        do {
            let vault = try Vault.open(at: database, keyProvider: keys, create: false)
            await vault.close()
            return .opened
        } catch {
            return .refused("\(error)")
        }
    }

    /// The path the app's own open decides, by name, with its reason.
    static func appPath(_ database: String, _ keys: KeyFileProvider) async -> (String, String) {
        do {
            let vault = try Vault.open(at: database, keyProvider: keys)
            do {
                let path = try await vault.resumePath()
                await vault.close()
                return (path.name, Self.reason(path))
            } catch {
                await vault.close()
                throw error
            }
        } catch let error as VaultError {
            switch error {
            case .corrupted(let reason): return ("corrupted", reason.kind.rawValue)
            case .unavailable: return ("unavailable", "")
            default: return ("error", "")
            }
        } catch {
            return ("error", "")
        }
    }

    private static func reason(_ path: ResumePath) -> String {
        switch path {
        case .corrupted(let reason): return reason.kind.rawValue
        case .missing(let reason): return reason.code
        default: return ""
        }
    }

    /// `sessionvault resume --dry-run --json`: the path's name (and kind when corrupted), or
    /// `error` when it decides none.
    func cliAnswer(_ database: String, key: String, scratch: String) async -> String {
        guard let result = try? await ChildProcess.run(cli, ["resume", "--dry-run", "--json", "--vault", database, "--key-file", key], scratch: scratch),
            let object = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            let path = object["path"] as? String
        else {
            return "error"
        }
        if path == "corrupted" || path == "missing", let reason = object["reason"] as? String { return "\(path)(\(reason))" }
        return path
    }

    static func name(_ outcome: ResumeOutcome) -> String {
        switch outcome {
        case .home: return "home"
        case .login(let reason, _): return "login(\(reason.code))"
        case .locked: return "locked"
        case .offline: return "offline"
        case .renewalRefused: return "renewalRefused"
        case .unavailable: return "unavailable"
        }
    }
}

/// Every session in these states is valid: a refresh is never needed. If one were attempted,
/// it fails as an unreachable server does, which spends nothing.
struct UnreachableServer: SessionRefresher {
    func refresh(using refreshToken: Token) async throws(RefreshError) -> RefreshedTokens {
        throw .network("no server in the crash-state explorer")
    }
}
