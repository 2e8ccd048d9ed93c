import Foundation
@testable import SessionVault

/// The reference model a history is checked against: the rules of the resume decision restated from
/// the README and the issue texts, not by calling `ResumeDecision`. It reads only what an actor's
/// vault connection holds (the times a decision is made from) and keeps its own account of what
/// must be true: which family the vault should hold, when its access token arrived, and which 429
/// deferrals are running.
struct HistoryModel {
    /// The history's policy, in the model's own constants.
    static let idleTimeout: TimeInterval = 30 * 60
    static let skewTolerance: TimeInterval = 120
    static let activitySlack: TimeInterval = 1
    static let marginCap: TimeInterval = 300
    static let marginShare = 0.25
    static let floorAfterReceipt: TimeInterval = 30

    /// What an actor's connection shows, read just before the step.
    struct View {
        var accessReceivedAt: Date
        var lastActiveAt: Date
        var lastWallClock: Date
        var refreshPending: Bool
        var biometric: Bool
    }

    /// What a call must do next, before the server has its say.
    enum Path: Equatable {
        case ended, locked, valid
        /// A refresh is due (`needsUser`: only after an unlock).
        case due(needsUser: Bool)
    }

    /// What the step must end with.
    enum Expected: Equatable, CustomStringConvertible {
        case ended, locked, token, offline
        /// The server refused the refresh without a verdict on the grant (`renewalRefused`).
        case refused
        var description: String {
            switch self {
            case .refused: return "refused"
            case .ended: return "ended"
            case .locked: return "locked"
            case .token: return "token/home"
            case .offline: return "offline"
            }
        }
    }

    var family: Int?
    /// When (device clock) the access token the vault should hold arrived.
    var receivedAt: Date?
    let lifetime: TimeInterval
    /// A 429 recorded in the vault (for every actor) and in each manager (for its own process).
    var vaultNotBefore: Date?
    /// When the server first refused the family's refresh without a verdict (nil: not refused
    /// since its last tokens).
    var refusedSince: Date?
    /// The step ended the session for refusals past the limit (no verdict, by design).
    var endedByRefusalLimit = false
    /// How long such refusals may last before the session ends (the policy's default).
    static let refusalLimit: TimeInterval = 24 * 3600
    /// The wait that recorded 429 asked for: the recorded wait is never longer.
    var vaultAsked: TimeInterval = 0
    /// The latest wall-clock time the vault has seen, as the last view read it.
    var vaultLastWallClock: Date?
    var actorRateLimit: [Int: (at: Date, delay: TimeInterval)] = [:]
    /// Damage the history injected that no recovery has wiped yet: every call meets it.
    var pendingDamage: CorruptionKind?
    /// The damage a wipe may answer, with the reason its tombstone must record: set when the
    /// history damages the files, cleared by the next sign-in (a store removes the tombstone, and
    /// from then on nothing entitles anyone to wipe).
    var wipeAllowed: CorruptionKind?
    /// A process was killed after its refresh reached the server: the server rotated the family
    /// but nobody stored the answer, so the vault holds the spent refresh token (marked pending).
    var lostRotation = false
    /// The family whose newest pair the vault never received, after the refresh that found the
    /// loss out was killed too: its reuse revoked the family, the vault still holds the pair
    /// before the lost one. Counts only while that family is the model's.
    var behindFamily: Int?
    /// Whether the vault holds the pair before the server's newest of the model's family.
    var vaultBehind: Bool { lostRotation || (behindFamily != nil && behindFamily == family) }
    /// A process was killed inside a write since the last sign-in: its commit frame may be in
    /// the write-ahead log while the shared index the live connections read never recorded it.
    /// The live connections (and every process that opens beside them) do not see that
    /// transaction, and their next write overwrites it; a copy of the files without the index
    /// (the CLI's private copy) rebuilds the index from the log and does see it, until then.
    var tornWrite = false
    /// A stopped process holds the refresh lock with a rotation the server issued and nobody
    /// stored yet: the vault holds the previous pair, and no other actor may refresh.
    var heldRotation = false
    /// Refresh-token reuses the history forced (each lost rotation allows the one that finds out).
    var allowedReuses = 0

    init(lifetime: TimeInterval) { self.lifetime = lifetime }

    /// The refresh-ahead rule: due at the expiry minus a quarter of the lifetime (at most five
    /// minutes), but not within 30 s of receipt unless the token is dead by then.
    var dueAfterReceipt: TimeInterval {
        max(lifetime - min(Self.marginCap, lifetime * Self.marginShare), min(lifetime, Self.floorAfterReceipt))
    }

    /// The path a call that holds the user to the idle lock (`forUser`) or not must take.
    func path(_ view: View?, now: Date, forUser: Bool) -> Path {
        guard family != nil, let view else { return .ended }
        let movedBack =
            view.lastWallClock.timeIntervalSince(now) > Self.skewTolerance
            || (forUser && view.lastActiveAt.timeIntervalSince(now) > Self.activitySlack)
        if movedBack { return .due(needsUser: forUser) }
        if view.refreshPending { return .due(needsUser: false) }
        if forUser && now.timeIntervalSince(view.lastActiveAt) >= Self.idleTimeout { return .due(needsUser: true) }
        return now < view.accessReceivedAt.addingTimeInterval(dueAfterReceipt) ? .valid : .due(needsUser: false)
    }

    /// The least lifetime left for which a token call hands out the live token after its refresh
    /// ahead of expiry failed for the server.
    static let liveTokenFloor: TimeInterval = 10

    /// Whether a token call's refresh is one ahead of the access token's expiry, with more than
    /// the floor left: should the server fail it (or ask to wait), the live token is handed out.
    func refreshingAhead(_ view: View?, now: Date, forUser: Bool) -> Bool {
        guard family != nil, let view else { return false }
        let movedBack =
            view.lastWallClock.timeIntervalSince(now) > Self.skewTolerance
            || (forUser && view.lastActiveAt.timeIntervalSince(now) > Self.activitySlack)
        if movedBack || view.refreshPending { return false }
        if forUser && now.timeIntervalSince(view.lastActiveAt) >= Self.idleTimeout { return false }
        return now < view.accessReceivedAt.addingTimeInterval(lifetime - Self.liveTokenFloor)
    }

    /// The user unlocked (or passed the biometric prompt) after the clock moved back: now becomes
    /// the vault's reference, and a recorded 429 keeps what was left of its wait counted from
    /// the latest time seen before (never stretched by the move).
    mutating func reanchorOnUnlock(_ view: View?, now: Date) {
        guard family != nil, let view else { return }
        let movedBack = view.lastWallClock.timeIntervalSince(now) > Self.skewTolerance || view.lastActiveAt.timeIntervalSince(now) > Self.activitySlack
        guard movedBack, let notBefore = vaultNotBefore else { return }
        vaultNotBefore = notBefore > view.lastWallClock ? now.addingTimeInterval(notBefore.timeIntervalSince(view.lastWallClock)) : nil
    }

    /// After the user unlocked (or the biometric prompt passed): the clock is the reference again
    /// and the user is active, so only the token's own due time and an interrupted refresh count.
    func pathAfterUnlock(_ view: View?, now: Date) -> Path {
        guard family != nil, let view else { return .ended }
        if view.refreshPending { return .due(needsUser: false) }
        return now < view.accessReceivedAt.addingTimeInterval(dueAfterReceipt) ? .valid : .due(needsUser: false)
    }

    /// A new session was stored: a fresh start for its own refreshes, in the vault and in every
    /// process (a 429 another session met holds nothing back).
    mutating func startFresh() {
        refusedSince = nil
        vaultNotBefore = nil
        actorRateLimit = [:]
    }

    /// Whether a refresh by `actor` must be held back by a 429 (no request sent).
    mutating func deferred(actor: Int, now: Date) -> Bool {
        var wait = false
        if let limit = actorRateLimit[actor] {
            // A clock moved back behind the 429 gives way to the vault's record.
            if now >= limit.at, now < limit.at.addingTimeInterval(limit.delay) { wait = true } else { actorRateLimit[actor] = nil }
        }
        if let notBefore = vaultNotBefore {
            var remaining = notBefore.timeIntervalSince(now)
            if remaining > vaultAsked + 1, let latest = vaultLastWallClock {
                // The clock moved back since the record: what was left at the latest time the
                // vault saw, counted again from now, never more than asked.
                remaining = min(vaultAsked, max(0, notBefore.timeIntervalSince(latest)))
                vaultNotBefore = now.addingTimeInterval(remaining)
            }
            if remaining > 0 { wait = true }
        }
        return wait
    }
}
