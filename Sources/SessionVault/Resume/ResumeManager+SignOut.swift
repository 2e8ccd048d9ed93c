import Foundation

extension ResumeManager {
    /// How close to its expiry (by this device's clock) an access token is refreshed before a
    /// logout that it authenticates (GoTrue): the request must reach the server while the token
    /// is still accepted. A clock that is wrong is caught by the server's refusal instead
    /// (`.accessTokenRejected`: one refresh, one more logout).
    static let signOutAccessMargin: TimeInterval = 60

    /// Signs the user out (scopes `.local` and `.global`): the vault is cleared, always (offline
    /// too), then the server is told
    /// when the refresher can (`SessionTerminator`): GoTrue `POST /logout?scope=…`, RFC 7009
    /// revocation, and for OIDC an end-session URL for the app to open. What the server says is
    /// reported and audited; it never undoes the local sign-out.
    ///
    /// Scope `.others` is not a sign-out of this device: it asks the server to end the user's
    /// *other* sessions and leaves this one signed in, vault and all (as supabase-swift and
    /// supabase-js do). Clearing the vault there would leave this device's server session alive
    /// with no token left anywhere to end it. Its tokens are taken as an API call takes them
    /// (refreshed and stored when due; the idle lock holds); it never throws (`server` says what
    /// stopped it), and `.noSession` there means this device has no session: show the login.
    /// The rest of this description is about `.local` and `.global`.
    ///
    /// Before it reads the tokens, sign-out takes the refresh lock (the `flock` beside the vault
    /// that every refresh holds, in this process and in others), so that it ends the session with
    /// the last tokens the server issued, and no refresh can send a token after it returned. It
    /// waits for a refresh in flight at most `refreshWaitLimit` seconds (measured on the
    /// monotonic clock); past that it clears the vault anyway and says so
    /// (`SignOutResult.refreshWasInFlight`): the holder then finds the session gone when its
    /// answer arrives and ends the server session with the tokens it received.
    ///
    /// When ending the session needs a live access token (GoTrue) and the stored one is dead or
    /// within a minute of it, the refresh token is spent once, under the refresh lock and after
    /// the vault was cleared, for a fresh one; the same happens once when the server refuses the
    /// access token (a device clock running late). The refreshed tokens are never stored.
    ///
    /// What the result promises about the server session: see `SignOutResult`.
    /// - Throws: only when the local sign-out itself failed (the vault cannot be written now).
    public func signOut(scope: SignOutScope = .local) async throws(VaultError) -> SignOutResult {
        if scope == .others { return await signOutOtherSessions() }
        // Settle first, as every call does: a rotation kept in memory (the store was busy or
        // full when the server answered) is written now if it can be, and otherwise its tokens
        // are the live ones: the vault still holds the refresh token the server spent.
        _ = await storeUnsavedRotation()
        let vault = try self.vault
        let lock = try refreshLock(for: vault)
        // A rotation still in memory keeps this manager's hold on the refresh lock: it is
        // this sign-out's already, nothing to wait for.
        let pending = unsavedRotation
        let held = pending != nil ? true : await takeRefreshLockForSignOut(lock)
        let session: Session?, refreshToken: Token?, accessToken: Token?, prover: DPoPProver?, idToken: Token?
        do {
            // Read under the lock: a refresh that finished while we waited has rotated them.
            session = try await vault.currentSession()
            let rotation = pending.flatMap { $0.sessionID == session?.id ? $0.refreshed.response : nil }
            if let rotation {
                // A rotation without a refresh token kept the stored one (RFC 6749 §6).
                let stored = rotation.refreshToken == nil ? try await vault.refreshToken() : nil
                (refreshToken, accessToken) = (rotation.refreshToken ?? stored, rotation.accessToken)
            } else {
                refreshToken = try await vault.refreshToken()
                accessToken = try await vault.accessToken()
            }
            // The end-session URL's hint: deleted with the row below, once the URL is built.
            idToken = try await vault.currentIDToken()
            // A DPoP session's key goes with its row: taken now, to end the server session with.
            prover = await proverForSignOut(session, in: vault)
            try await vault.signOut(reason: .signedOut)
        } catch {
            // A rotation still in memory keeps the lock (and stays: the vault still holds its
            // session, whose live tokens only it has).
            if held && pending == nil { lock.unlock() }
            throw error
        }
        // The vault no longer holds the refresh token: no other refresh can spend it, so the
        // lock goes now rather than after the server's answer. A rotation kept in memory goes
        // with it: its tokens are the ones ended at the server below.
        if pending != nil, unsavedRotation?.sessionID == pending?.sessionID { unsavedRotation = nil }
        if held { lock.unlock() }
        guard let session else { return SignOutResult(server: .noSession, endSessionURL: nil) }
        guard let terminator = refresher as? any SessionTerminator else {
            return SignOutResult(server: .notSupported, endSessionURL: nil, refreshWasInFlight: !held)
        }
        let server = await endServerSession(
            terminator, session: session, refreshToken: refreshToken, accessToken: accessToken,
            scope: scope, mayRefresh: held, prover: prover)
        try? await vault.recordAudit(.serverSignOut, reason: "\(scope.rawValue):\(server.code)\(held ? "" : ":refreshInFlight")")
        logger.info(
            "signed out",
            metadata: [
                "signOut.scope": "\(scope.rawValue)", "signOut.server": "\(server.code)",
                "signOut.refreshInFlight": "\(!held)"
            ])
        return SignOutResult(server: server, endSessionURL: terminator.endSessionURL(idTokenHint: idToken), refreshWasInFlight: !held)
    }

    /// Scope `.others`: the server ends every session of the user but this one; the vault keeps
    /// its session. The request goes out with this session's live tokens, taken as an API call
    /// takes them (`freshAccessToken()`, whatever the terminator: the session's rules hold for
    /// a custom one too): the idle lock holds (or the biometric prompt, as for any call), a due
    /// token is refreshed once, single-flight, and the rotation is stored; a damaged vault is
    /// recovered as for any call. When the server refuses a token this device thought alive (its
    /// clock running late), that same session is refreshed once and asked once more, never
    /// after a refresh this call already made, never for a session that replaced it meanwhile:
    /// no loop, no third request. Nothing is sent when no live token can be had (`.failed`,
    /// saying why), nor when this device has no session, or its session ended just now
    /// (`.noSession`: show the login). A terminator that cannot end only the other sessions
    /// (`SessionTerminator.canEnd(_:)`; RFC 7009 revocation names one token, this device's own)
    /// is `.notSupported` before anything is read or sent.
    private func signOutOtherSessions() async -> SignOutResult {
        guard let terminator = refresher as? any SessionTerminator, terminator.canEnd(.others) else {
            return SignOutResult(server: .notSupported, endSessionURL: nil, serverKeepsThisSession: true)
        }
        let first = await endOtherSessions(terminator)
        var server = first.server
        if server == .accessTokenRejected, let used = first.session, !first.refreshed {
            switch await refresh(expected: used) {
            case .home(let current) where current.id == used.id: server = await endOtherSessions(terminator).server
            case .login: server = .noSession
            // Another session is current now: its other sessions are not this call's to end.
            case .home, .locked, .offline, .renewalRefused, .unavailable: break
            }
        }
        try? await openedVault?.recordAudit(.serverSignOut, reason: "\(SignOutScope.others.rawValue):\(server.code)")
        logger.info("the user's other devices signed out", metadata: ["signOut.scope": "\(SignOutScope.others.rawValue)", "signOut.server": "\(server.code)"])
        return SignOutResult(server: server, endSessionURL: nil, serverKeepsThisSession: true)
    }

    /// One request to end the other sessions, with this session's tokens as they are now: what
    /// the server said, the session whose tokens went out, and whether this call refreshed them.
    private func endOtherSessions(_ terminator: any SessionTerminator) async -> (server: ServerSignOut, session: Session?, refreshed: Bool) {
        let before = try? await vault.currentSession()
        let session: Session, access: Token
        switch await freshAccessToken() {
        case .token(let token, let current): (session, access) = (current, token)
        case .sessionEnded: return (.noSession, nil, false)
        case .locked: return (.failed(Self.othersNeedUnlock), nil, false)
        case .offline, .renewalRefused: return (.failed(Self.othersNeedServer), nil, false)
        case .unavailable(_, let detail): return (.failed("the vault cannot be read now: \(detail)"), nil, false)
        }
        let refreshed = before?.id != session.id || before?.tokenVersion != session.tokenVersion
        // A rotation the disk could not take yet holds the only live refresh token.
        let refresh: Token?
        if let unsaved = unsavedRotation, unsaved.sessionID == session.id, let rotated = unsaved.refreshed.response.refreshToken {
            refresh = rotated
        } else {
            do { refresh = try await vault.refreshToken() } catch { return (.failed("the vault cannot be read now: \(error)"), session, refreshed) }
        }
        let prover = await proverForSignOut(session, in: try? vault)
        if session.proofKeyThumbprint != nil, prover == nil, terminator.endsSessionWithAccessToken {
            return (.failed(Self.boundWithoutProofForSignOut), session, refreshed)
        }
        let server = await terminator.endServerSession(refreshToken: refresh, accessToken: access, scope: .others, prover: prover)
        return (server, session, refreshed)
    }

    /// Why the other sessions were not ended: the idle lock (or a failed unlock) holds the token.
    static let othersNeedUnlock = "the session is locked: unlock it, then sign the other devices out"
    /// Why the other sessions were not ended: no live access token could be had from the server.
    static let othersNeedServer = "no live access token: the server could not be reached (or asked to wait) for a refresh"

    /// Tells the server, refreshing first (or once after a refusal) when the terminator needs a
    /// live access token and `mayRefresh` (this sign-out held the refresh lock when it read the
    /// refresh token, so nobody else is spending it).
    private func endServerSession(
        _ terminator: any SessionTerminator, session: Session, refreshToken: Token?, accessToken: Token?,
        scope: SignOutScope, mayRefresh: Bool, prover: DPoPProver?
    ) async -> ServerSignOut {
        // A DPoP-bound access token is never sent as a bearer one, nor its refresh token
        // without a proof (RFC 9449 §7.2): without a prover (no DPoPConfiguration here, or the
        // key lost) a logout authenticated by the access token cannot be made. A revocation
        // (RFC 7009) names the refresh token without presenting it, and goes ahead.
        if session.proofKeyThumbprint != nil, prover == nil, terminator.endsSessionWithAccessToken {
            return .failed(Self.boundWithoutProofForSignOut)
        }
        var access = accessToken, refresh = refreshToken
        // A bound access token without its proof is never handed on where the refresh token can
        // name the session instead: a terminator might present it (an authenticated revocation).
        if session.proofKeyThumbprint != nil, prover == nil, refresh != nil { access = nil }
        var refreshed = false
        let needsAccess = terminator.endsSessionWithAccessToken && mayRefresh
        let spent = access == nil || (session.accessExpiresAt.map { $0.timeIntervalSince(clock()) <= Self.signOutAccessMargin } ?? true)
        if needsAccess, spent, let token = refresh {
            switch await refreshForSignOut(token, prover: prover) {
            case .success(let fresh, let rotated): (access, refresh, refreshed) = (fresh, rotated ?? refresh, true)
            case .failure(let outcome): return outcome
            }
        }
        let answer = await terminator.endServerSession(refreshToken: refresh, accessToken: access, scope: scope, prover: prover)
        guard answer == .accessTokenRejected, needsAccess, !refreshed, let token = refresh else { return answer }
        // Refused before the session was looked at (the device's clock thought the token alive):
        // one refresh, one more attempt, never a loop.
        switch await refreshForSignOut(token, prover: prover) {
        case .success(let fresh, let rotated):
            return await terminator.endServerSession(refreshToken: rotated ?? token, accessToken: fresh, scope: scope, prover: prover)
        case .failure(let outcome):
            return outcome
        }
    }

    /// Spends the refresh token of a session the vault no longer holds, for a live access token.
    /// A refusal that kills the refresh token means the server holds no session for it.
    /// A DPoP session's refresh token is bound to its key: the refresh carries a proof by it.
    private func refreshForSignOut(_ token: Token, prover: DPoPProver?) async -> SignOutRefresh {
        do {
            let refreshed = try await refresher.refresh(using: token, prover: prover)
            return .success(access: refreshed.response.accessToken, refresh: refreshed.response.refreshToken)
        } catch {
            switch error {
            case .invalidGrant, .sessionExpired: return .failure(.alreadyEnded)
            case .clientRejected(error: let code): return .failure(.clientRejected(code))
            default: return .failure(.failed("the access token needed a refresh first, which failed: \(error)"))
            }
        }
    }

    /// A refresh made for the sign-out: fresh tokens, or the answer that ends the attempt.
    private enum SignOutRefresh {
        case success(access: Token, refresh: Token?)
        case failure(ServerSignOut)
    }

    /// Why the server was not told of a DPoP-bound session's sign-out.
    static let boundWithoutProofForSignOut =
        "the session is DPoP-bound and no proof can be made here (no DPoPConfiguration, or its key is lost or unusable): its tokens are not sent as bearer ones, so the server was not told"

    /// The prover of a DPoP `session` for its sign-out, without side effects: a key that is
    /// lost, unavailable or not the recorded one gives none (a logout authenticated by the
    /// access token is then not sent; the local sign-out happens regardless).
    private func proverForSignOut(_ session: Session?, in vault: Vault?) async -> DPoPProver? {
        guard let dpop, let vault, let session, let thumbprint = session.proofKeyThumbprint else { return nil }
        guard let stored = try? await vault.currentProofKey(), stored.sessionID == session.id,
            let storedForm = stored.stored
        else { return nil }
        let key: any ProofSigningKey
        do { key = try await dpop.keyProvider.key(fromStored: storedForm) } catch { return nil }
        let recorded = try? await vault.recordedServerClockOffset()
        guard let prover = DPoPProver(key: key, nonces: dpop.nonces, clock: clock, serverClock: dpop.serverClock, recordedClockOffset: recorded),
            prover.thumbprint == thumbprint
        else { return nil }
        return prover
    }

    /// Waits (bounded by `refreshWaitLimit`, on the monotonic clock) for the refresh lock; true
    /// when this sign-out holds it. Suspends rather than blocks, so this process's own refresh
    /// in flight (on this actor) can finish and let go of it.
    private func takeRefreshLockForSignOut(_ lock: FileLock) async -> Bool {
        let start = DispatchTime.now().uptimeNanoseconds
        let limit = UInt64(max(0, min(refreshWaitLimit, 3600)) * 1_000_000_000)
        var announced = false
        while true {
            // A lock that cannot be taken at all (an I/O error) is treated as held elsewhere:
            // the local sign-out must still happen.
            if (try? lock.tryLock()) == true { return true }
            if DispatchTime.now().uptimeNanoseconds &- start >= limit {
                logger.notice("sign-out stopped waiting for a refresh; clearing the vault without it")
                return false
            }
            if !announced {
                logger.info("sign-out waits for a refresh in flight")
                announced = true
            }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
    }

    /// A refresh answered after the session it refreshed was signed out (or replaced by another
    /// sign-in): the server holds a session for the tokens it just issued, which nobody will
    /// ever use. End it with them rather than drop them. Not when the same session is still
    /// current at a later version (someone else rotated it): that session lives on.
    /// `prover`: the one the refresh was made with (a DPoP session's key is gone with its row).
    func endOrphanedRotation(_ vault: Vault, _ refreshed: RefreshedTokens, sessionID: String, prover: DPoPProver?) async {
        guard let terminator = refresher as? any SessionTerminator else { return }
        // Only on a successful read: a vault that cannot be read now proves nothing gone.
        guard let current = try? await vault.currentSession() as Session??, current?.id != sessionID else { return }
        let server = await terminator.endServerSession(
            refreshToken: refreshed.response.refreshToken,
            accessToken: refreshed.response.accessToken, scope: .local,
            prover: DPoPConfiguration.isBound(refreshed.response.tokenType) ? prover : nil)
        try? await vault.recordAudit(.serverSignOut, reason: "orphanedRotation:\(server.code)")
        logger.notice(
            "a refresh answered after sign-out; its tokens were sent to end the server session",
            metadata: ["session.id": "\(sessionID)", "signOut.server": "\(server.code)"])
    }
}

/// The result of `ResumeManager.signOut(scope:)`: the vault is already cleared when it returns
/// (scopes `local` and `global`; scope `others` keeps this device signed in).
///
/// What it says about the server session, case by case:
/// - scope `local` or `global`, `server` is `.ended`, `.alreadyEnded` or `.noSession` and
///   `refreshWasInFlight` is false: the server holds no session for any token this vault held.
/// - `refreshWasInFlight`: another process (or manager) held the refresh lock for longer than
///   `refreshWaitLimit`; its refresh may bring tokens this sign-out never saw. That holder finds
///   the session gone when its answer arrives and ends the server session with what it received;
///   until then (or for ever, if that process dies first) the server may hold a session.
/// - scope `others`: the server ends the user's other sessions (`server` is `.ended` when it
///   did) and keeps this one, which the vault keeps too: `serverSessionMayOutlive` is true
///   whatever `server` says. `.noSession` there: this device has no session (none, or it ended
///   while its tokens were taken: a refusal, the absolute lifetime, a recovery).
/// - anything else (offline, refused, unsupported): the server session lives until the server
///   ends it by its own expiry. SessionVault keeps no copy of the tokens to retry with: after a
///   sign-out nothing in the vault's files can act as the user.
public struct SignOutResult: Sendable, Equatable, CustomStringConvertible {
    /// What the server said.
    public let server: ServerSignOut
    /// For OIDC servers with an `end_session_endpoint` (RP-initiated logout): the URL the app
    /// opens in a browser so the provider's own session ends too. Nil otherwise.
    public let endSessionURL: URL?
    /// Another holder of the refresh lock was still refreshing when the sign-out stopped waiting
    /// for it (see `ResumeManager.refreshWaitLimit`).
    public let refreshWasInFlight: Bool

    /// The sign-out kept this device's session, here and at the server (scope `others`).
    let serverKeepsThisSession: Bool

    /// Whether the server may still hold a session for this user on this device: true unless the
    /// server confirmed it holds none and no refresh elsewhere can have made a new token (and
    /// always after scope `others`, which keeps this device signed in).
    public var serverSessionMayOutlive: Bool { !server.serverSessionGone || refreshWasInFlight || serverKeepsThisSession }

    /// What the server said and where the end-session URL goes, without its query (it carries the
    /// ID token as `id_token_hint`).
    public var description: String {
        var url = "none"
        if let endSessionURL, var components = URLComponents(url: endSessionURL, resolvingAgainstBaseURL: false) {
            let names = components.queryItems?.map(\.name) ?? []
            components.query = nil
            url = (components.url?.absoluteString ?? "?") + (names.isEmpty ? "" : "?" + names.joined(separator: "&"))
        }
        return "SignOutResult(server \(server.code), endSessionURL \(url)\(refreshWasInFlight ? ", refresh was in flight" : ""))"
    }

    init(server: ServerSignOut, endSessionURL: URL?, refreshWasInFlight: Bool = false, serverKeepsThisSession: Bool = false) {
        self.server = server
        self.endSessionURL = endSessionURL
        self.refreshWasInFlight = refreshWasInFlight
        self.serverKeepsThisSession = serverKeepsThisSession
    }
}
