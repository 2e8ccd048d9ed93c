// A second process for the multi-process tests (two runtimes or an app and its extension on one
// vault file). Prints one line per result on stdout; never prints a token, only fingerprints.
//
//   VaultTestHost resume <db> <keyfile> <goTrueBaseURL> [waitLimit]
//                                                           one ResumeManager.resume(); waitLimit
//                                                           bounds the wait for another refresher
//   VaultTestHost oauth-resume <db> <keyfile> <tokenEndpoint> <clientID> <clockOffset>
//                                                           one ResumeManager.resume() with an
//                                                           OAuth2Refresher, its clock moved by
//                                                           clockOffset s, no minimum access TTL
//   VaultTestHost rotate <db> <keyfile> <refreshToken>      stores new tokens for the session
//   VaultTestHost store <db> <keyfile> <refreshToken>       creates the vault if absent, stores a sign-in
//   VaultTestHost open <db> <keyfile>                       Vault.open(create: false), prints "opened" or the error
//   VaultTestHost signout <db> <keyfile>
//   VaultTestHost rotate-loop <db> <keyfile> <count>        rotates count times ("rotated i vN" each), waiting
//                                                           out typed refusals (another process's rekey)
//   VaultTestHost churn <db> <keyfile> <rounds> <tag>        per round: open, store, rotate, read, sign out,
//                                                           close; prints "rotated <tag> <round> vN" for each
//                                                           committed rotation, "done" at the end, and stops
//                                                           at the first error that is not another process's
//                                                           newer state (staleSession, noSession)
//   VaultTestHost wipe <db> <keyfile>                       an explicit wipe (no tombstone)
//   VaultTestHost rekey <db> <keyfile> <newkeyfile>         rekeys to a new key file, then signs out
//   VaultTestHost rekey-killed-at <db> <keyfile> <newkeyfile> <point>
//                                                           rekeys, stopping at the CrashPoint named <point>:
//                                                           prints "ready <point>" and waits to be SIGKILLed
//   VaultTestHost open-create <db> <keyfile>                opens (creating when absent), prints the snapshot, closes
//   VaultTestHost watch <db> <keyfile> <stopfile>           prints vault events until <stopfile> exists (60 s at most)
//   VaultTestHost create-and-store <db> <keyfile> <startfile> <refreshToken>
//                                                           prints "ready", waits for <startfile>, then one
//                                                           ResumeManager.resume() and a store (a launch racing others)
//   VaultTestHost store-signout-hold <db> <keyfile> <refreshToken> <stopfile>
//                                                           stores, signs out, prints "signedOut", keeps the vault
//                                                           open until <stopfile> exists (60 s at most) or it is killed
//   VaultTestHost fresh-tokens <db> <keyfile> <goTrueBaseURL> <count>
//                                                           count concurrent freshAccessToken() calls on one
//                                                           manager; prints "ready" as they start, then
//                                                           "tokens <ok> <distinct> <fp> v<N>"
//                                                           (fingerprint of the first token's session) or the
//                                                           first outcome that was not a token
//   VaultTestHost hot-wal <db> <keyfile> <refreshToken> <newRefreshToken>
//                                                           stores a sign-in and closes (the main file
//                                                           holds it), reopens and rotates to the new token
//                                                           (only the write-ahead log holds that), prints
//                                                           "ready <fingerprint> v<N>" and waits to be
//                                                           SIGKILLed: a device image of a running app
//   VaultTestHost hot-wal-preference <db> <keyfile>        the same with a biometric preference change and
//                                                           no sign-in ("ready"), so a tombstone beside the
//                                                           vault stays (a store would remove it)
//   VaultTestHost background-at <db> <keyfile> <baseURL> <seconds>
//                                                           one backgroundAccessToken() against a GoTrue
//                                                           endpoint, its clock standing at <seconds> since
//                                                           1970 (a history's device clock); prints "token",
//                                                           "ended <reason>", "locked", "offline" or
//                                                           "unavailable" (the session histories' extension
//                                                           process, killed or stopped inside its refresh)
//   VaultTestHost store-json-at <db> <keyfile> <jsonfile> <seconds>
//                                                           stores the token response in <jsonfile> (a history
//                                                           server's sign-in) as the current session, the clock
//                                                           standing at <seconds> since 1970; prints "stored"
//   VaultTestHost dpop-resume-at <db> <keyfile> <baseURL> <seconds>
//                                                           one ResumeManager.resume() of a DPoP app (its proof
//                                                           key from the vault), the clock standing at <seconds>;
//                                                           prints the outcome and, at home, "jkt <thumbprint>"
//   VaultTestHost held-at <db> <keyfile> <gofile> <seconds> resume|background
//                                                           resume-held with the clock standing at <seconds>
//                                                           since 1970 (a history's device clock), as a launch
//                                                           ("home <fp> v<N>", "login …") or as an extension's
//                                                           backgroundAccessToken() ("token", "ended <reason>", …)
//   VaultTestHost resume-held <db> <keyfile> <gofile>       one ResumeManager.resume() whose clock, read
//                                                           right after the manager logged "vault corrupted"
//                                                           (just before its recovery wipe), prints "held" and
//                                                           waits for <gofile>; then prints the outcome
import Foundation
import SessionVault
import Logging

func line(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

func fail(_ text: String) -> Never {
    FileHandle.standardError.write(Data((text + "\n").utf8))
    exit(1)
}

func describe(_ outcome: ResumeOutcome) -> String {
    switch outcome {
    case .home(let session): return "home \(session.refreshTokenFingerprint?.hex ?? "-") v\(session.tokenVersion)"
    case .login(let reason, let message): return "login \(reason.code) \(message)"
    case .locked: return "locked"
    case .offline(_, let retryAfter): return "offline \(retryAfter)"
    case .renewalRefused(_, _, let retryAfter): return "renewalRefused \(retryAfter)"
    case .unavailable(_, let detail): return "unavailable \(detail)"
    }
}

func signIn(_ refreshToken: String) throws -> TokenResponse {
    let json =
        #"{"access_token":"access-\#(refreshToken)","token_type":"bearer","expires_in":3600,"refresh_token":"\#(refreshToken)","user":{"id":"user-123"}}"#
    return try TokenResponse(json: Data(json.utf8))
}

/// Waits for `path` to appear: the parent's signal (a fixed wait would race a busy machine). The
/// cap only keeps a broken test from leaving the process behind; going on without the signal
/// would break the test's synchronization, so it is far beyond any test's length.
func waitForFile(_ path: String) async throws {
    let deadline = Date().addingTimeInterval(900)
    while !FileManager.default.fileExists(atPath: path) && Date() < deadline {
        try await Task.sleep(nanoseconds: 1_000_000)
    }
}

/// After "ready": held open until the test kills this process. Never closed (closing
/// checkpoints the log into the main file and deletes it, the very state the test needs); if no
/// kill comes within 120 s the process exits as it is, still without closing.
func holdUntilKilled() async -> Never {
    let deadline = Date().addingTimeInterval(120)
    while Date() < deadline { try? await Task.sleep(nanoseconds: 50_000_000) }
    exit(3)
}

/// Opens (creating when absent) and closes, so the main file holds everything so far and the
/// log is gone, then opens again for the write that only the log will hold.
func reopenedAfterCheckpoint(_ path: String, keys: KeyFileProvider, _ first: (Vault) async throws -> Void) async throws -> Vault {
    let vault = try Vault.open(at: path, keyProvider: keys, create: true)
    try await first(vault)
    await vault.close()
    return try Vault.open(at: path, keyProvider: keys, create: false)
}

func describe(_ event: VaultEvent) -> String {
    switch event {
    case .tokenUpdated(let fingerprint): return "tokenUpdated \(fingerprint?.hex ?? "-")"
    case .signedOut: return "signedOut"
    case .wiped(let kind): return "wiped \(kind?.rawValue ?? "-")"
    case .biometricChanged(let enabled): return "biometricChanged \(enabled)"
    case .activeSubjectChanged(let subject): return "activeSubjectChanged \(subject ?? "-")"
    case .changedElsewhere: return "changedElsewhere"
    }
}

/// One process's share of the contention test (see `churn` in the usage above). A failure names
/// the step it happened in.
func churn(path: String, keys: KeyFileProvider, rounds: Int, tag: String) async throws {
    var step = "open"
    do {
        for round in 1...rounds {
            step = "open"
            let vault = try Vault.open(at: path, keyProvider: keys, logger: hostLogger)
            step = "store"
            let signIn =
                #"{"access_token":"a-\#(tag)-\#(round)","token_type":"bearer","expires_in":3600,"refresh_token":"r-\#(tag)-\#(round)","user":{"id":"\#(tag)"}}"#
            let stored = try await vault.store(TokenResponse(json: Data(signIn.utf8)))
            step = "rotate"
            let rotation = #"{"access_token":"a2-\#(tag)-\#(round)","token_type":"bearer","expires_in":3600,"refresh_token":"r2-\#(tag)-\#(round)"}"#
            do {
                let rotated = try await vault.rotate(
                    TokenResponse(json: Data(rotation.utf8)), expectedSessionID: stored.id, expectedVersion: stored.tokenVersion)
                line("rotated \(tag) \(round) v\(rotated.tokenVersion)")
            } catch VaultError.staleSession {
                // Another process signed in or out in between: its state is newer, as it should be.
            }
            step = "resumePath"
            _ = try await vault.resumePath()
            step = "refreshToken"
            _ = try await vault.refreshToken()
            step = "signOut"
            do { try await vault.signOut(ifCurrent: stored.id) } catch VaultError.staleSession {}
            step = "close"
            await vault.close()
        }
    } catch {
        fail("error in \(step): \(error)")
    }
    line("done")
}

/// Many API calls in one process asking for a token at once (AppAuth-iOS #716): one manager,
/// `count` concurrent calls. Only counts and a fingerprint are printed, never a token.
func freshTokens(path: String, keys: KeyFileProvider, baseURL: URL, count: Int) async {
    let manager = ResumeManager(
        path: path, keyProvider: keys, refresher: GoTrueRefresher(baseURL: baseURL, apiKey: "anon", timeout: 120),
        logger: hostLogger, refreshWaitLimit: 60)
    // Lets the test hold the server's answer until every process is asking.
    line("ready")
    let results: [(text: String?, outcome: String)] = await withTaskGroup(of: (String?, String).self) { group in
        for _ in 0..<count {
            group.addTask {
                switch await manager.freshAccessToken() {
                case .token(let token, let session):
                    return (
                        token.withRevealedBytes { String(decoding: $0, as: UTF8.self) },
                        "\(session.refreshTokenFingerprint?.hex ?? "-") v\(session.tokenVersion)"
                    )
                case .sessionEnded(let reason, _): return (nil, "sessionEnded \(reason.code)")
                case .offline: return (nil, "offline")
                case .renewalRefused: return (nil, "renewalRefused")
                case .locked: return (nil, "locked")
                case .unavailable(_, let detail): return (nil, "unavailable \(detail)")
                }
            }
        }
        return await group.reduce(into: []) { $0.append(($1.0, $1.1)) }
    }
    if let failure = results.first(where: { $0.text == nil }) {
        line("failed \(failure.outcome)")
        return
    }
    let distinct = Set(results.compactMap(\.text)).count
    let sessions = Set(results.map(\.outcome))
    line("tokens \(results.count) \(distinct) \(sessions.count == 1 ? results[0].outcome : "several-sessions")")
}

/// Armed when the manager logs that it met a corrupted vault; the clock read after that (the one
/// right before the recovery wipe) holds the process until the test says go.
final class RecoveryGate: @unchecked Sendable {
    // Sendable: `lock` guards `armed`.
    private let lock = NSLock()
    private var armed = false
    let goFile: String
    /// The time the clock stands at (a history's device clock); nil: the system clock.
    let fixed: Date?

    init(goFile: String, fixed: Date? = nil) {
        self.goFile = goFile
        self.fixed = fixed
    }

    func arm() { lock.withLock { armed = true } }

    /// The clock: holds once, the first time it is read after `arm()`.
    func now() -> Date {
        let hold = lock.withLock { () -> Bool in
            defer { armed = false }
            return armed
        }
        if hold {
            line("held")
            // Polls for the test's file: a synchronous clock cannot await. Capped like waitForFile.
            let deadline = Date().addingTimeInterval(900)
            while !FileManager.default.fileExists(atPath: goFile) && Date() < deadline { usleep(1_000) }
        }
        return fixed ?? Date()
    }
}

/// Passes every log line on, and arms the gate at the manager's "vault corrupted".
struct GateArmingLogHandler: LogHandler {
    let gate: RecoveryGate
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        if event.message.description == "vault corrupted" { gate.arm() }
    }
}

let arguments = CommandLine.arguments
let hostLogger = FileLogHandler.processLogger()
guard arguments.count >= 4 else { fail("usage: VaultTestHost resume|rotate|signout|watch <db> <keyfile> …") }
let keys = KeyFileProvider(path: arguments[3])

// The command runs in a function, not in top-level code: in top-level async code this
// toolchain (Swift 6.3.1) left a temporary string unreleased at exit, which
// LeakSanitizer reports (make check-asan); inside a function it is released. The
// arguments come in as parameters (the top-level globals belong to the main actor).
func runCommand(_ arguments: [String], keys: KeyFileProvider) async {
    do {
        switch arguments[1] {
        case "resume":
            guard arguments.count == 5 || arguments.count == 6, let url = URL(string: arguments[4]) else { fail("resume needs a base URL") }
            let waitLimit = arguments.count == 6 ? TimeInterval(arguments[5]) : nil
            // A long request timeout: a test may hold this process stopped (SIGSTOP) while its request
            // is out, and the answer must still be read once it runs again.
            let manager = ResumeManager(
                path: arguments[2], keyProvider: keys, refresher: GoTrueRefresher(baseURL: url, apiKey: "anon", timeout: 120),
                logger: hostLogger, refreshWaitLimit: waitLimit ?? 10)
            line(describe(await manager.resume()))
        case "background-at":
            guard arguments.count == 6, let url = URL(string: arguments[4]), let seconds = TimeInterval(arguments[5]) else {
                fail("background-at needs a base URL and a time")
            }
            // The histories' policy (a 30-minute idle lock; background work is not held by it).
            var policy = ResumePolicy()
            policy.idleTimeout = 30 * 60
            let manager = ResumeManager(
                path: arguments[2], keyProvider: keys, refresher: GoTrueRefresher(baseURL: url, apiKey: "anon-key", timeout: 120),
                policy: policy, clock: { Date(timeIntervalSince1970: seconds) }, logger: hostLogger)
            switch await manager.backgroundAccessToken() {
            case .token: line("token")
            case .sessionEnded(let reason, _): line("ended \(reason.code)")
            case .locked: line("locked")
            case .offline: line("offline")
            case .renewalRefused: line("renewalRefused")
            case .unavailable(_, let detail): line("unavailable \(detail)")
            }
        case "store-json-at":
            guard arguments.count == 6, let seconds = TimeInterval(arguments[5]) else { fail("store-json-at needs a JSON file and a time") }
            let json = try Data(contentsOf: URL(fileURLWithPath: arguments[4]))
            let vault = try Vault.open(at: arguments[2], keyProvider: keys, clock: { Date(timeIntervalSince1970: seconds) }, logger: hostLogger)
            try await vault.store(try TokenResponse(json: json))
            await vault.close()
            line("stored")
        case "dpop-resume-at":
            // A process of a DPoP app (software proof key from the vault) resuming at a
            // fixed time; prints the outcome and the session's key thumbprint.
            guard arguments.count == 6, let url = URL(string: arguments[4]), let seconds = TimeInterval(arguments[5]) else {
                fail("dpop-resume-at needs a base URL and a time")
            }
            var policy = ResumePolicy()
            policy.idleTimeout = nil
            let manager = ResumeManager(
                path: arguments[2], keyProvider: keys, refresher: GoTrueRefresher(baseURL: url, apiKey: "anon", timeout: 120),
                policy: policy, clock: { Date(timeIntervalSince1970: seconds) }, logger: hostLogger,
                dpop: DPoPConfiguration())
            let outcome = await manager.resume()
            if case .home(let session) = outcome {
                line("\(describe(outcome)) jkt \(session.proofKeyThumbprint ?? "-")")
            } else {
                line(describe(outcome))
            }
        case "held-at":
            guard arguments.count == 7, let seconds = TimeInterval(arguments[5]), let url = URL(string: "http://127.0.0.1:9/auth/v1") else {
                fail("held-at needs a go file, a time and resume or background")
            }
            let gate = RecoveryGate(goFile: arguments[4], fixed: Date(timeIntervalSince1970: seconds))
            let logger = Logger(label: "VaultTestHost") { label in
                MultiplexLogHandler([GateArmingLogHandler(gate: gate)] + (hostLogger.map { [$0.handler] } ?? []))
            }
            var policy = ResumePolicy()
            policy.idleTimeout = 30 * 60
            let manager = ResumeManager(
                path: arguments[2], keyProvider: keys, refresher: GoTrueRefresher(baseURL: url, apiKey: "anon"),
                policy: policy, clock: { gate.now() }, logger: logger)
            if arguments[6] == "resume" {
                line(describe(await manager.resume()))
            } else {
                switch await manager.backgroundAccessToken() {
                case .token: line("token")
                case .sessionEnded(let reason, _): line("ended \(reason.code)")
                case .locked: line("locked")
                case .offline: line("offline")
                case .renewalRefused: line("renewalRefused")
                case .unavailable(_, let detail): line("unavailable \(detail)")
                }
            }
        case "resume-held":
            guard arguments.count == 5, let url = URL(string: "http://127.0.0.1:9/auth/v1") else { fail("resume-held needs a go file") }
            let gate = RecoveryGate(goFile: arguments[4])
            let logger = Logger(label: "VaultTestHost") { label in
                MultiplexLogHandler([GateArmingLogHandler(gate: gate)] + (hostLogger.map { [$0.handler] } ?? []))
            }
            let manager = ResumeManager(
                path: arguments[2], keyProvider: keys, refresher: GoTrueRefresher(baseURL: url, apiKey: "anon"),
                clock: { gate.now() }, logger: logger)
            line(describe(await manager.resume()))
        case "oauth-resume":
            guard arguments.count == 7, let url = URL(string: arguments[4]), let offset = TimeInterval(arguments[6]) else {
                fail("oauth-resume needs a token endpoint, a client id and a clock offset")
            }
            // The offset puts this process past the stored access token's expiry without waiting
            // for it; no minimum TTL, so the token another process just refreshed counts as valid.
            var policy = ResumePolicy()
            policy.minimumAccessTTL = 0
            policy.idleTimeout = nil
            let manager = ResumeManager(
                path: arguments[2], keyProvider: keys, refresher: OAuth2Refresher(tokenEndpoint: url, clientID: arguments[5], timeout: 60),
                policy: policy, clock: { Date().addingTimeInterval(offset) }, refreshWaitLimit: 60)
            line(describe(await manager.resume()))
        case "rotate":
            guard arguments.count == 5 else { fail("rotate needs a refresh token") }
            let vault = try Vault.open(at: arguments[2], keyProvider: keys, create: false)
            let json = #"{"access_token":"access-\#(arguments[4])","token_type":"bearer","expires_in":3600,"refresh_token":"\#(arguments[4])"}"#
            let session = try await vault.rotate(TokenResponse(json: Data(json.utf8)))
            line("rotated \(session.refreshTokenFingerprint?.hex ?? "-")")
        case "store":
            guard arguments.count == 5 else { fail("store needs a refresh token") }
            let vault = try Vault.open(at: arguments[2], keyProvider: keys, create: true)
            let json =
                #"{"access_token":"access-\#(arguments[4])","token_type":"bearer","expires_in":3600,"refresh_token":"\#(arguments[4])","user":{"id":"host-user"}}"#
            let session = try await vault.store(TokenResponse(json: Data(json.utf8)))
            line("stored \(session.refreshTokenFingerprint?.hex ?? "-")")
        case "open":
            do {
                let vault = try Vault.open(at: arguments[2], keyProvider: keys, create: false)
                await vault.close()
                line("opened")
            } catch {
                line("error: \(error)")
            }
        case "open-create":
            let vault = try Vault.open(at: arguments[2], keyProvider: keys, create: true)
            switch try await vault.snapshot() {
            case .empty(let reason): line("empty \(reason.code)")
            case .session(let session, _, _): line("session \(session.refreshTokenFingerprint?.hex ?? "-")")
            default: line("other")
            }
            await vault.close()
        case "signout":
            let vault = try Vault.open(at: arguments[2], keyProvider: keys, create: false)
            try await vault.signOut()
            line("signedOut")
        case "rotate-loop":
            guard arguments.count == 5, let count = Int(arguments[4]), count > 0 else { fail("rotate-loop needs a count") }
            let vault = try Vault.open(at: arguments[2], keyProvider: keys, create: false)
            for round in 1...count {
                var refusals = 0
                while true {
                    let json = #"{"access_token":"access-loop-\#(round)","token_type":"bearer","expires_in":3600,"refresh_token":"loop-\#(round)"}"#
                    do {
                        let session = try await vault.rotate(TokenResponse(json: Data(json.utf8)))
                        line("rotated \(round) v\(session.tokenVersion)")
                        break
                    } catch {
                        // Between another process's rekey and the key reaching this process's key
                        // storage, the vault answers wrongKey: an app retries later.
                        refusals += 1
                        if refusals > 2_000 { fail("still refused: \(error)") }
                        try await Task.sleep(nanoseconds: 5_000_000)
                    }
                }
            }
        case "churn":
            guard arguments.count == 6, let rounds = Int(arguments[4]), rounds > 0 else { fail("churn needs rounds and a tag") }
            try await churn(path: arguments[2], keys: keys, rounds: rounds, tag: arguments[5])
        case "wipe":
            let vault = try Vault.open(at: arguments[2], keyProvider: keys, create: false)
            try await vault.wipe()
            line("wiped")
        case "rekey":
            guard arguments.count == 5 else { fail("rekey needs a new key file") }
            let vault = try Vault.open(at: arguments[2], keyProvider: keys, create: false)
            try await vault.rekey(to: KeyFileProvider(path: arguments[4]))
            line("rekeyed")
            try await vault.signOut()
            line("signedOut")
        case "rekey-killed-at":
            guard arguments.count == 6, let point = CrashPoint(rawValue: arguments[5]) else { fail("rekey-killed-at needs a new key file and a crash point") }
            let vault = try Vault.open(at: arguments[2], keyProvider: keys, create: false)
            CrashPoint.arm { reached in
                guard reached == point else { return }
                line("ready \(reached.rawValue)")
                // Stopped here until the test's SIGKILL: the files stay exactly as the point left them.
                while true { pause() }
            }
            try await vault.rekey(to: KeyFileProvider(path: arguments[4]))
            fail("the rekey passed \(point.rawValue) without stopping")
        case "watch":
            guard arguments.count == 5 else { fail("watch needs a stop file") }
            let vault = try Vault.open(at: arguments[2], keyProvider: keys, create: false)
            let events = await vault.events()
            line("watching")
            let reader = Task {
                for await event in events { line(describe(event)) }
            }
            // Until the test says stop: a fixed watch time would race a busy test machine (a
            // 60 s cap did: on a machine at load 22 the test reached its biometric change after
            // the watcher had stopped). The cap only keeps a broken test from leaving it behind.
            let deadline = Date().addingTimeInterval(900)
            while !FileManager.default.fileExists(atPath: arguments[4]) && Date() < deadline {
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            reader.cancel()
        case "create-and-store":
            guard arguments.count == 6, let url = URL(string: "http://127.0.0.1:9/auth/v1") else {
                fail("create-and-store needs a start file and a refresh token")
            }
            line("ready")
            try await waitForFile(arguments[4])
            let manager = ResumeManager(path: arguments[2], keyProvider: keys, refresher: GoTrueRefresher(baseURL: url, apiKey: "anon"))
            let outcome = await manager.resume()
            line("resumed \(describe(outcome))")
            guard let vault = try? await manager.vault else { fail("no vault after \(describe(outcome))") }
            let session = try await vault.store(signIn(arguments[5]))
            line("stored \(session.refreshTokenFingerprint?.hex ?? "-")")
        case "store-signout-hold":
            guard arguments.count == 6 else { fail("store-signout-hold needs a refresh token and a stop file") }
            let vault = try Vault.open(at: arguments[2], keyProvider: keys)
            try await vault.store(signIn(arguments[4]))
            try await vault.signOut()
            line("signedOut")
            try await waitForFile(arguments[5])
            await vault.close()
        case "fresh-tokens":
            guard arguments.count == 6, let url = URL(string: arguments[4]), let count = Int(arguments[5]), count > 0 else {
                fail("fresh-tokens needs a base URL and a count")
            }
            await freshTokens(path: arguments[2], keys: keys, baseURL: url, count: count)
        case "hot-wal":
            guard arguments.count == 6 else { fail("hot-wal needs a refresh token and a new one") }
            let vault = try await reopenedAfterCheckpoint(arguments[2], keys: keys) { try await $0.store(signIn(arguments[4])) }
            let json = #"{"access_token":"access-\#(arguments[5])","token_type":"bearer","expires_in":3600,"refresh_token":"\#(arguments[5])"}"#
            let session = try await vault.rotate(TokenResponse(json: Data(json.utf8)))
            line("ready \(session.refreshTokenFingerprint?.hex ?? "-") v\(session.tokenVersion)")
            await holdUntilKilled()
        case "hot-wal-preference":
            let vault = try await reopenedAfterCheckpoint(arguments[2], keys: keys) { _ in }
            try await vault.setBiometricUnlock(true)
            line("ready")
            await holdUntilKilled()
        default:
            fail("unknown command \(arguments[1])")
        }
    } catch {
        fail("error: \(error)")
    }
}

await runCommand(arguments, keys: keys)
