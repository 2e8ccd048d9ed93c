import Foundation
@testable import SessionVault
import SessionVaultTestSupport

/// One step of a history. Actor 0 is the app, 1 and 2 are extensions, each its own `ResumeManager`
/// on its own vault connection (its own file descriptors, so the refresh lock's `flock` and
/// SQLite's locks behave between them as between processes).
enum HistoryStep: Sendable, Equatable, CustomStringConvertible {
    /// Which token an API call sends: the one this actor was handed last, or an older one.
    enum Sent: Sendable, Equatable { case latest, older(Int) }
    /// What the API answers besides the truth: nothing, or "the server ended the session".
    enum Reply: Sendable, Equatable { case truth(variant: Int), sessionExpired }

    /// A new manager for the actor (a process start), then `resume()` (app) or
    /// `backgroundAccessToken()` (extension).
    case launch(actor: Int)
    case resume
    case resumeAfterUnlock
    case freshAccessToken
    case backgroundAccessToken(actor: Int)
    case apiCall(actor: Int, sent: Sent, reply: Reply)
    case signIn
    case signOut(actor: Int, scope: SignOutScope)
    case biometric(Bool)
    case touch
    /// Moves the device's clock (the server's moves forward only).
    case clock(seconds: Int)
    case rateLimitBurst(count: Int, retryAfter: Int)
    case serverErrors(count: Int)
    /// Something in front of the server answers: a CDN's 403 HTML page.
    case proxyPages(count: Int)
    /// The server refuses the refresh without a verdict on the grant (Glewlwyd's empty 400).
    case unexplainedRefusals(count: Int)
    case serverRevokes
    /// `refreshNow()` whose caller is cancelled once the request reached the server.
    case cancelDuringRefresh(actor: Int)
    /// `refreshNow()` held at the server while another actor signs out.
    case signOutDuringRefresh(refresher: Int, signer: Int)
    /// Every actor stops (its vault closed), the files are damaged, every actor starts again.
    case damage(HistoryDamage)
    /// The stale-recovery race: the files are damaged as in `damage`; `held` meets the damage
    /// and is held right before its recovery wipe while `recoverer` recovers and the user signs
    /// in afresh; then `held` goes on. The new session must survive.
    case staleRecovery(held: Int, recoverer: Int, damage: HistoryDamage)
    /// An extension in a child process (`VaultTestHost background-at`) asks for a token; when
    /// that needs a refresh, the process is SIGKILLed (`stop` false) or SIGSTOPped and continued
    /// (`stop` true) once its request reached the server, before the answer arrives.
    case processFault(stop: Bool)
    /// An extension in a child process is SIGSTOPped inside its refresh, holding the refresh
    /// lock with the server's answer unread, while `inner` runs in the other actors; then it
    /// continues. `inner` is one of `holderInnerSteps`.
    indirect case stoppedHolder(inner: HistoryStep)
    /// An extension in a child process refreshes (`signIn` false) or stores a sign-in (`signIn`
    /// true) and is SIGKILLed right after its `at`-th durable call on the vault's files (a
    /// write, sync, rename, link or unlink; `Tests/CrashStates/interposer.c`).
    case killedInsideWrite(signIn: Bool, at: Int)
    /// A process opens the vault through a read-only mount of its folder (a volume remounted
    /// read-only, a sandbox that denies writes) and asks for a token.
    case readOnlyProcess
    /// A process opens the vault with a key provider of another identity (another key file
    /// name: missing, or a zero file there), as a second component or an app update would.
    case otherKeyProvider(zeroFile: Bool)
    /// The disk fills up to `free` bytes left, `actor` asks for a token, the disk is freed, and
    /// the same actor asks again.
    case diskFull(actor: Int, free: Int)
    /// The app rotates its root key: the vault is rekeyed to a new key, which then takes the
    /// old key's place in the key store (the key file's path, as a Keychain item is replaced);
    /// the app restarts, the extensions go on with their open connections.
    case rekey
    /// The app's auto-refresh loop runs (its clock the device's) until it settles: asleep until
    /// its next deadline, or waiting for a sign-in or an unlock; then it is stopped.
    case autoRefresh
    /// The app switches the session's active subject (a caregiver acting for a patient, with
    /// the server's validation value), or back to the user's own (`to` nil).
    case switchSubject(to: String?)
    /// `actor` runs a full integrity scan of the vault it has open.
    case verify(actor: Int)
    /// An investigator runs the CLI (`resume --dry-run`, `inspect`, `verify`) on the live vault.
    case forensicRead

    var description: String {
        switch self {
        case .launch(let actor): return "launch(\(Self.name(actor)))"
        case .resume: return "app.resume"
        case .resumeAfterUnlock: return "app.resumeAfterUnlock"
        case .freshAccessToken: return "app.freshAccessToken"
        case .backgroundAccessToken(let actor): return "\(Self.name(actor)).backgroundAccessToken"
        case .apiCall(let actor, let sent, let reply):
            let token: String
            switch sent {
            case .latest: token = "latest"
            case .older(let n): token = "older(\(n))"
            }
            let answer: String
            switch reply {
            case .truth(let variant): answer = "truth/\(variant)"
            case .sessionExpired: answer = "SESSION_EXPIRED"
            }
            return "\(Self.name(actor)).api(\(token), \(answer))"
        case .signIn: return "app.signIn"
        case .signOut(let actor, let scope): return "\(Self.name(actor)).signOut(\(scope.rawValue))"
        case .biometric(let on): return "app.biometric(\(on ? "on" : "off"))"
        case .touch: return "app.touch"
        case .clock(let seconds): return seconds == 0 ? "clock still" : seconds > 0 ? "clock +\(seconds)s" : "clock \(seconds)s"
        case .rateLimitBurst(let count, let retryAfter): return "server 429 x\(count) retry_after \(retryAfter)"
        case .serverErrors(let count): return "server 5xx x\(count)"
        case .proxyPages(let count): return "proxy 403 page x\(count)"
        case .unexplainedRefusals(let count): return "server 400 empty x\(count)"
        case .serverRevokes: return "server revokes the session"
        case .cancelDuringRefresh(let actor): return "\(Self.name(actor)).refreshNow cancelled in flight"
        case .signOutDuringRefresh(let refresher, let signer): return "\(Self.name(refresher)).refreshNow held while \(Self.name(signer)).signOut"
        case .processFault(let stop): return "ext process.backgroundAccessToken, \(stop ? "SIGSTOP + SIGCONT" : "SIGKILL") inside its refresh"
        case .stoppedHolder(let inner): return "ext process SIGSTOPped inside its refresh while [\(inner)], then SIGCONT"
        case .killedInsideWrite(let signIn, let at):
            return "ext process \(signIn ? "storing a sign-in" : "refreshing") SIGKILLed after its durable file call \(at)"
        case .forensicRead: return "cli resume --dry-run, inspect, verify"
        case .autoRefresh: return "app auto-refresh loop runs until it settles, then stops"
        case .switchSubject(let subject): return "app switches the active subject to \(subject ?? "the user's own")"
        case .rekey: return "app rekeys to a new key, which replaces the old in the key store; app restarts"
        case .verify(let actor): return "\(Self.name(actor)).verify"
        case .readOnlyProcess: return "ext process on a read-only mount of the vault's folder.backgroundAccessToken"
        case .otherKeyProvider(let zeroFile): return "process with another key file (\(zeroFile ? "a zero file" : "missing")).backgroundAccessToken"
        case .diskFull(let actor, let free): return "disk full (\(free) B left): \(Self.name(actor)) token call; disk freed; again"
        case .damage(let damage): return "all stop; \(damage); all start"
        case .staleRecovery(let held, let recoverer, let damage):
            return "\(damage); \(Self.name(held)) held before its recovery wipe while \(Self.name(recoverer)) recovers and the user signs in"
        }
    }

    /// What the other actors may do while a stopped process holds the refresh lock: calls that
    /// need a refresh (they must not send one), writes (a sign-in, a sign-out, activity) and the
    /// clock moving on.
    static func holderInnerStep(using rng: inout SeededGenerator) -> HistoryStep {
        let actor = Int.random(in: 0...2, using: &rng)
        switch Int.random(in: 0..<9, using: &rng) {
        case 0, 1: return .freshAccessToken
        case 2: return .backgroundAccessToken(actor: Int.random(in: 1...2, using: &rng))
        case 3: return .apiCall(actor: actor, sent: .latest, reply: .truth(variant: 0))
        case 4: return .touch
        case 5: return .clock(seconds: Int.random(in: 1...600, using: &rng))
        case 6: return .signIn
        case 7: return .signOut(actor: actor, scope: .local)
        default: return .signOut(actor: actor, scope: .global)
        }
    }

    static func name(_ actor: Int) -> String { actor == 0 ? "app" : "ext\(actor)" }

    /// A random history of `count` steps. Weighted towards what moves a session along (calls and
    /// the clock), with faults and races sprinkled in; it starts with a sign-in most of the time.
    static func generate(count: Int, using rng: inout SeededGenerator) -> [HistoryStep] {
        var steps: [HistoryStep] = []
        if Int.random(in: 0..<10, using: &rng) < 8 { steps.append(.signIn) }
        var forward = 0
        while steps.count < count {
            let roll = Int.random(in: 0..<132, using: &rng)
            let ext = Int.random(in: 1...2, using: &rng)
            let anyActor = Int.random(in: 0...2, using: &rng)
            switch roll {
            case 0..<4: steps.append(.launch(actor: anyActor))
            case 4..<9: steps.append(.resume)
            case 9..<13: steps.append(.resumeAfterUnlock)
            case 13..<25: steps.append(.freshAccessToken)
            case 25..<32: steps.append(.backgroundAccessToken(actor: ext))
            case 32..<42:
                let sent: Sent = Int.random(in: 0..<3, using: &rng) == 0 ? .older(Int.random(in: 1...4, using: &rng)) : .latest
                let reply: Reply = Int.random(in: 0..<8, using: &rng) == 0 ? .sessionExpired : .truth(variant: Int.random(in: 0..<3, using: &rng))
                steps.append(.apiCall(actor: anyActor, sent: sent, reply: reply))
            case 42..<45: steps.append(.signIn)
            case 45..<48:
                let scopes: [SignOutScope] = [.local, .local, .global, .others]
                steps.append(.signOut(actor: anyActor, scope: scopes[Int.random(in: 0..<scopes.count, using: &rng)]))
            case 48..<51: steps.append(.biometric(Bool.random(using: &rng)))
            case 51..<54: steps.append(.touch)
            case 54..<74:
                // Seconds to days forward (at most 20 days in all: the refresh token lives 30),
                // back by up to three hours, or standing still.
                let kind = Int.random(in: 0..<100, using: &rng)
                var seconds: Int
                switch kind {
                case 0..<30: seconds = Int.random(in: 1...60, using: &rng)
                case 30..<55: seconds = Int.random(in: 61...1800, using: &rng)
                case 55..<70: seconds = Int.random(in: 1801...14400, using: &rng)
                case 70..<75: seconds = Int.random(in: 14401...172_800, using: &rng)
                case 75..<92: seconds = -Int.random(in: 30...10800, using: &rng)
                default: seconds = 0
                }
                if seconds > 0 { seconds = min(seconds, 20 * 86400 - forward) }
                forward += max(0, seconds)
                steps.append(.clock(seconds: seconds))
            case 74..<78: steps.append(.rateLimitBurst(count: Int.random(in: 1...3, using: &rng), retryAfter: Int.random(in: 5...120, using: &rng)))
            case 78..<80: steps.append(.serverErrors(count: Int.random(in: 1...2, using: &rng)))
            case 80..<81: steps.append(.proxyPages(count: Int.random(in: 1...2, using: &rng)))
            case 81..<82: steps.append(.unexplainedRefusals(count: Int.random(in: 1...3, using: &rng)))
            case 82..<85: steps.append(.serverRevokes)
            case 85..<90: steps.append(.cancelDuringRefresh(actor: anyActor))
            case 90..<100:
                let signer = Int.random(in: 0...2, using: &rng)
                steps.append(.signOutDuringRefresh(refresher: anyActor, signer: signer))
            case 100..<102:
                steps.append(.damage(HistoryDamage.allCases[Int.random(in: 0..<HistoryDamage.allCases.count, using: &rng)]))
                // Most users sign in again once told to.
                if Int.random(in: 0..<10, using: &rng) < 7 { steps.append(.signIn) }
            case 103..<104:
                steps.append(.otherKeyProvider(zeroFile: Bool.random(using: &rng)))
            case 104..<106:
                steps.append(.processFault(stop: Bool.random(using: &rng)))
            case 106..<110:
                steps.append(.stoppedHolder(inner: holderInnerStep(using: &rng)))
            case 110..<114:
                // A background refresh in a new process makes about 115 durable calls on the
                // vault's files (its open, the pending mark, a checkpoint, the rotation); a
                // sign-in stored by a new process about 13 (counted with the interposer's log).
                let signIn = Int.random(in: 0..<3, using: &rng) == 0
                steps.append(.killedInsideWrite(signIn: signIn, at: Int.random(in: 1...(signIn ? 16 : 120), using: &rng)))
            case 114..<116:
                steps.append(.forensicRead)
            case 116..<118:
                steps.append(.readOnlyProcess)
            case 126..<130:
                steps.append(.autoRefresh)
            case 130..<132:
                steps.append(.switchSubject(to: Bool.random(using: &rng) ? "patient-\(Int.random(in: 1...3, using: &rng))" : nil))
            case 122..<124:
                steps.append(.rekey)
            case 124..<126:
                steps.append(.verify(actor: anyActor))
            case 118..<122:
                steps.append(.diskFull(actor: anyActor, free: [0, 16384, 32768, 49152, 65536, 98304, 262_144][Int.random(in: 0..<7, using: &rng)]))
            default:
                let held = Int.random(in: 0...2, using: &rng)
                let recoverer = (held + Int.random(in: 1...2, using: &rng)) % 3
                steps.append(
                    .staleRecovery(
                        held: held, recoverer: recoverer,
                        damage: HistoryDamage.allCases[Int.random(in: 0..<HistoryDamage.allCases.count, using: &rng)]))
            }
        }
        return steps
    }
}
