import Foundation

/// What the manager answers when it cannot go home: ending a session (clearing what its reason
/// says, then login), turning an error into an outcome, and recovering a corrupted vault (wipe,
/// tombstone, login), deciding again when the files changed under the recovery.
extension ResumeManager {
    /// The outcome for what the vault holds now, without starting a refresh (used from inside
    /// a refresh, where starting another would wait on itself).
    func outcomeWithoutRefresh(_ vault: Vault) async -> ResumeOutcome {
        do {
            switch try await vault.resumePath() {
            case .valid(let session): return .home(session)
            case .missing(let reason): return await endSession(vault, reason: reason)
            case .corrupted(let reason): return await recover(from: reason)
            case .unavailable(let retryAfter, let detail): return .unavailable(retryAfter: retryAfter, detail: detail)
            case .expired(let session, _): return .offline(session, retryAfter: backoff.nextDelay())
            }
        } catch {
            return await outcome(for: error)
        }
    }

    /// Clears what must be cleared for `reason` and sends the user to login.
    /// - Parameter sessionID: the session this decision is about; when another session became
    ///   current meanwhile (the next user signed in), it is left alone and its own path is taken.
    func endSession(_ vault: Vault, reason: MissingReason, sessionID: String? = nil, version: Int64? = nil) async -> ResumeOutcome {
        do {
            if let current = try await vault.currentSession() {
                try await vault.signOut(reason: reason, ifCurrent: sessionID ?? current.id, atVersion: version)
            }
        } catch VaultError.staleSession {
            return await outcomeWithoutRefresh(vault)
        } catch {
            return await outcome(for: error)
        }
        return .login(reason: reason, showExpiredMessage: Self.showsExpiredMessage(reason))
    }

    static func showsExpiredMessage(_ reason: MissingReason) -> Bool {
        switch reason {
        case .sessionExpired, .refreshTokenExpired, .absoluteLifetimePassed, .refreshRejected, .refreshInterrupted: return true
        case .proofKeyLost: return true
        case .neverSignedIn, .signedOut, .authRequired, .scopeRejected, .biometryChanged, .wipedAfterCorruption, .refreshedForAnotherSubject:
            return false
        }
    }

    /// Errors become outcomes: corrupted recovers, everything else is "not now", never "signed out".
    func outcome(for error: any Error) async -> ResumeOutcome {
        switch error {
        case VaultError.corrupted(let reason):
            return await recover(from: reason)
        case VaultError.unavailable(let retryAfter, let detail):
            return .unavailable(retryAfter: retryAfter, detail: detail)
        // The paths lead to files that cannot be proven this vault's (an app's own database, a
        // file that is not our key file, a link): never recovered by a wipe. Unavailable, with a
        // detail that says why, until the configuration is fixed; every byte is left as it was.
        case VaultError.misconfigured, VaultError.keyProvider(.misconfigured), VaultError.otherKey:
            return .unavailable(retryAfter: 60, detail: "\(error)")
        // Everything else, `internalFault` included: the store was not shown to be damaged, so
        // it is "not now", never a wipe.
        default:
            return .unavailable(retryAfter: 1, detail: "\(error)")
        }
    }

    /// The corrupted path: wipe, tombstone, login. A wrong key is the exception: the file is
    /// healthy and the right key (a correctly typed passphrase, the right keychain item) opens
    /// it, so it is never wiped automatically.
    ///
    /// The wipe acts only on the files the corruption was found in: when another process
    /// recovered or replaced the vault in between (a user signed in afresh), nothing is wiped and
    /// the path is decided again on what is there now (`decideAgain`).
    /// - Parameter attempt: how many times this launch has decided again already.
    func recover(from reason: CorruptionReason, attempt: Int = 0) async -> ResumeOutcome {
        logger.error("vault corrupted", metadata: ["corruption.kind": "\(reason.kind.rawValue)"])
        if reason.kind == .wrongKey {
            return .unavailable(retryAfter: 1, detail: "the key does not match the vault (wrongKey); not wiped")
        }
        do {
            // An open vault is wiped and reopened in place: its subscribers see `.wiped(kind)` and
            // go on receiving the fresh vault's events on the same stream.
            if let openedVault {
                try await openedVault.recoverInPlace(from: reason)
            } else {
                try Vault.recover(at: path, keyProvider: keyProvider, reason: reason, now: clock())
            }
        } catch VaultError.changedElsewhere {
            logger.notice("vault changed since it was found corrupted; deciding again", metadata: ["corruption.kind": "\(reason.kind.rawValue)"])
            return await decideAgain(attempt: attempt + 1)
        } catch {
            return .unavailable(retryAfter: 1, detail: "recovery wipe failed: \(error)")
        }
        // A wipe that finished one cut short kept that wipe's tombstone: its reason is the first.
        let kind = Vault.tombstone(at: path)?.reason ?? reason.kind
        return .login(reason: .wipedAfterCorruption(kind), showExpiredMessage: false)
    }

    /// How many times one launch decides again after the files changed under a recovery.
    static let decisionLimit = 3

    /// The vault changed between a corruption diagnosis and its wipe: the path of what is there
    /// now, carried out as `resume()` would. Bounded: a vault that keeps changing under every
    /// recovery is "not now", never a wipe of something undiagnosed.
    func decideAgain(attempt: Int) async -> ResumeOutcome {
        guard attempt < Self.decisionLimit else {
            return .unavailable(retryAfter: 1, detail: "the vault changed under every recovery attempt; nothing was wiped")
        }
        let vault: Vault
        let path: ResumePath
        do {
            vault = try self.vault
            path = try await vault.resumePath()
        } catch VaultError.corrupted(let reason) {
            return await recover(from: reason, attempt: attempt)
        } catch {
            return await outcome(for: error)
        }
        return await carryOut(path, in: vault, attempt: attempt)
    }
}
