import Foundation
import Logging

extension Vault {
    /// Stores a new sign-in as the current session, replacing any previous one.
    ///
    /// Storing the very tokens already current is a no-op and emits nothing, so two runtimes
    /// that mirror each other's updates do not loop.
    /// - Parameters:
    ///   - response: the token endpoint's response; it must name its subject (a GoTrue `user`,
    ///     a `sub` claim), or use `store(_:identity:biometricEnabled:serverClockOffset:)`.
    ///   - biometricEnabled: the unlock preference; nil keeps the device's current preference.
    ///   - serverClockOffset: server minus local time in seconds, when the response's `Date`
    ///     header was seen; used only to convert a server-stated `expires_at`.
    @discardableResult
    public func store(_ response: TokenResponse, biometricEnabled: Bool? = nil, serverClockOffset: TimeInterval? = nil) throws(VaultError) -> Session {
        try store(response, biometricEnabled: biometricEnabled, serverClockOffset: serverClockOffset, onlyIf: nil)
    }

    /// `store`, and with `expected` only while the current session is still the one it names
    /// (checked again inside the write transaction): a sign-in that began before another
    /// session was stored never replaces that newer one (`.staleSession`).
    ///
    /// With `proofKey` (a DPoP sign-in) the session's proof key is sealed into the same row, in
    /// the same transaction: a session bound to a key never exists without it.
    func store(
        _ response: TokenResponse, biometricEnabled: Bool?, serverClockOffset: TimeInterval?,
        onlyIf expected: ExpectedCurrentSession?, proofKey: NewProofKey? = nil
    ) throws(VaultError) -> Session {
        let hold = try holdStableFile()
        defer { hold.unlock() }
        guard let identity = response.identity else { throw .invalidTokenResponse(.missingField("user.id or a sub claim")) }
        do { try response.checkRanges() } catch { throw .invalidTokenResponse(error) }
        try reloadIfChangedElsewhere()
        if let expected, !expected.matches(state.current?.session.id) { throw .staleSession }
        if proofKey == nil, let current = state.current, current.session.identity == identity, holdsSameTokens(as: response),
            biometricEnabled.map({ $0 == current.session.biometricEnabled }) ?? true
        {
            return current.session
        }
        let id = Hex.encode(Sodium.randomBytes(16))
        let sealed = SealedTokens(refresh: response.refreshToken, access: response.accessToken, sessionID: id, tokenVersion: 1, keys: keys)
        let sealedProofKey = proofKey.map { SessionRecord.sealProofKey($0.stored, sessionID: id, keys: keys) }
        let biometric = biometricEnabled ?? state.biometricPreference
        let previous = state.current?.session.id
        let offset = serverClockOffset ?? state.serverClockOffset
        // A wipe's tombstone goes before the new session lands, durably: a process killed (or a
        // power cut) between the two must never leave the old wipe's record beside a healthy
        // session, where a later wipe would keep its stale reason as the first. Removed first, it
        // loses nothing: the database this store writes to recorded the reason when it was
        // created after that wipe (`vault_state.empty_reason`).
        if FileIO.exists(files.tombstone) {
            try? FileIO.removeIfPresent(files.tombstone)
            try? FileIO.fsyncDirectory(FileIO.parentDirectory(of: files.tombstone))
        }
        try write("store") { connection, now in
            if let expected {
                // Under the write lock: another process may have stored since the read above.
                let current = try VaultStateRecord.currentSessionID(in: connection)
                guard expected.matches(current) else { throw VaultError.staleSession }
            }
            let times = TokenTimes(response, receivedAt: now, policy: policy, serverClockOffset: offset)
            // Whole milliseconds, as every time in a record is (see `SessionRecord`).
            let receipt = Date(unixMilliseconds: now.unixMilliseconds)
            var session = Session(
                id: id, identity: identity, activeSubject: nil, tokenType: response.tokenType, scope: response.scope,
                refreshTokenFingerprint: sealed.refreshFingerprint, accessTokenFingerprint: sealed.accessFingerprint,
                accessExpiresAt: times.accessExpiresAt.map(Date.init(unixMilliseconds:)),
                accessIssuedAt: Date(unixMilliseconds: times.accessIssuedAt),
                serverExpiresAt: times.serverExpiresAt.map(Date.init(unixMilliseconds:)),
                refreshExpiresAt: Date(unixMilliseconds: times.refreshExpiresAt), issuedAt: receipt,
                absoluteDeadline: times.absoluteDeadline.map(Date.init(unixMilliseconds:)), lastActiveAt: receipt,
                biometricEnabled: biometric, tokenVersion: 1, refreshPendingSince: nil)
            if let previous { try SessionRecord.delete(id: previous, in: connection) }
            session.proofKeyThumbprint = proofKey?.thumbprint
            var record = SessionRecord(session: session, sealed: sealed, createdAt: receipt)
            record.sealedProofKey = sealedProofKey
            record.sealedIDToken = response.idToken.map { SessionRecord.sealIDToken($0, sessionID: id, keys: keys) }
            try record.insert(into: connection)
            try VaultStateRecord.setCurrentSession(
                id, biometricPreference: biometric, serverClockOffset: UnixMilliseconds.from(seconds: offset),
                in: connection)
            // A new sign-in is a fresh start for its own refreshes: a 429 another session met
            // does not hold this one back.
            try VaultStateRecord.clearRefreshDeferral(in: connection)
            try audit(connection, .stored, sessionID: id, fingerprint: sealed.refreshFingerprint ?? sealed.accessFingerprint, reason: nil, at: now)
        }
        // The replaced session's tokens are still in the log's older frames.
        if previous != nil { discardLoggedPages(after: "store") }
        pendingActivity = nil
        lastActivityWrite = nil
        emit(.tokenUpdated(sealed.refreshFingerprint))
        logger.info("stored session", metadata: ["vault.operation": "store", "session.id": "\(id)", "token.fp": "\(sealed.refreshFingerprint?.hex ?? "-")"])
        return try requireSession()
    }

    /// Stores the result of a refresh: both tokens replaced in one durable transaction.
    ///
    /// Compare-and-swap: the write happens only if the current session is still the one with id
    /// `expectedSessionID` at `expectedVersion` (defaults: the session and version held now).
    /// A late result for a session that was signed out, replaced or already rotated is dropped
    /// with `.staleSession`, never written over newer state: pass both when the refresh began
    /// before an `await`, since every new session starts again at version 1. A response without
    /// a refresh token keeps the stored one (RFC 6749 §6).
    /// - Throws: `.noSession` when no session is current (signed out, wiped) and no
    ///   `expectedSessionID` was given; `.staleSession` when the expected session or version is
    ///   no longer current; `.subjectMismatch` when the response names another subject.
    @discardableResult
    public func rotate(
        _ response: TokenResponse, expectedSessionID: String? = nil, expectedVersion: Int64? = nil,
        serverClockOffset: TimeInterval? = nil
    ) throws(VaultError) -> Session {
        do { try response.checkRanges() } catch { throw .invalidTokenResponse(error) }
        let hold = try holdStableFile()
        defer { hold.unlock() }
        try reloadIfChangedElsewhere()
        // With no session there is nothing to rotate; a caller that read a session which has
        // since gone learns that its result is stale.
        guard let current = state.current else { throw expectedSessionID == nil ? .noSession : .staleSession }
        if let expectedSessionID, expectedSessionID != current.session.id { throw .staleSession }
        let version = expectedVersion ?? current.session.tokenVersion
        guard version == current.session.tokenVersion else { throw .staleSession }
        // Another subject only when the ID token or user object names someone else and the
        // access token does not name the stored user either: a session stored by a release that
        // took its subject from the access token is still the same user's.
        let stored = current.session.identity.subject
        if let identity = response.identity, !response.identityFromAccessTokenOnly, identity.subject != stored,
            response.accessTokenSubject != stored
        {
            throw .subjectMismatch
        }
        if current.session.refreshPendingSince == nil, holdsSameTokens(as: response) { return current.session }
        let id = current.session.id
        let refreshToken = response.refreshToken ?? state.tokens.refresh
        let sealed = SealedTokens(refresh: refreshToken, access: response.accessToken, sessionID: id, tokenVersion: version + 1, keys: keys)
        let offset = serverClockOffset ?? state.serverClockOffset
        // What the UPDATE wrote is what memory holds afterwards: one value, made once.
        var written: SessionRecord?
        let apply: (inout VaultState, UInt64) -> Void = { state, generation in
            guard let written else { return }
            state.current = written
            state.tokens = OpenedTokens(
                refresh: refreshToken.map { Token(secret: $0.secret, fingerprint: sealed.refreshFingerprint) },
                access: Token(secret: response.accessToken.secret, fingerprint: sealed.accessFingerprint))
            state.generation = generation
            state.serverClockOffset = offset
            state.refreshNotBefore = nil
            state.refreshDeferredFor = nil
        }
        try write("rotate", apply: apply) { connection, now in
            let times = TokenTimes(response, receivedAt: now, policy: policy, serverClockOffset: offset)
            var record = current.rotated(response, times: times, sealed: sealed, version: version + 1)
            // A refresh that sends a new ID token replaces the one kept for the logout hint.
            if let idToken = response.idToken { record.sealedIDToken = SessionRecord.sealIDToken(idToken, sessionID: id, keys: keys) }
            let updated = try record.updateIfCurrent(SessionRecord.rotationColumns, atVersion: version, in: connection)
            guard updated else { throw VaultError.staleSession }
            written = record
            // The refresh this result settles is over: its lease goes in the same transaction,
            // and a rate limit recorded earlier no longer holds (the server answered).
            try SessionRecord.deleteLease(of: id, in: connection)
            try VaultStateRecord.clearRefreshDeferral(in: connection)
            // The space the refresh mark held goes back to the free list for the pages this
            // rotation writes. Without secure_delete for this one statement: the reserve holds
            // only zeros, and zeroing its pages again would write as many pages as it frees,
            // past the space the mark made sure of.
            try connection.execute("PRAGMA secure_delete = OFF")
            do {
                defer { try? connection.execute("PRAGMA secure_delete = ON") }
                try SessionRecord.releaseRotationSpace(in: connection)
            }
            if serverClockOffset != nil {
                try VaultStateRecord.setServerClockOffset(UnixMilliseconds.from(seconds: offset), in: connection)
            }
            try audit(connection, .rotated, sessionID: id, fingerprint: sealed.refreshFingerprint, reason: nil, at: now)
        }
        emit(.tokenUpdated(sealed.refreshFingerprint))
        logger.info("rotated tokens", metadata: ["vault.operation": "rotate", "session.id": "\(id)", "token.fp": "\(sealed.refreshFingerprint?.hex ?? "-")"])
        return try requireSession()
    }

    /// Records user activity (for the idle timeout). Called on every interaction, so it is
    /// coalesced: written at most once per `policy.lastActiveWriteInterval`, at synchronous=NORMAL
    /// (losing the last few seconds of activity to a power cut only makes the idle check stricter).
    public func touch() throws(VaultError) {
        let now = clock()
        pendingActivity = now
        if let last = lastActivityWrite, now.timeIntervalSince(last) < policy.lastActiveWriteInterval, now >= last { return }
        try flushActivity()
    }

    /// Writes coalesced activity now (also done by `close`).
    public func flushActivity() throws(VaultError) {
        guard let activity = pendingActivity, let id = state.current?.session.id else { return }
        let hold = try holdStableFile()
        defer { hold.unlock() }
        let connection = try liveConnection()
        do {
            try connection.execute("PRAGMA synchronous = NORMAL")
            defer { try? connection.execute("PRAGMA synchronous = FULL") }
            try connection.transaction {
                try SessionRecord.raiseLastActive(of: id, to: activity.unixMilliseconds, in: connection)
                try VaultStateRecord.raiseLastWallClock(to: activity.unixMilliseconds, in: connection)
            }
        } catch {
            throw VaultError(underlying: error, files: files)
        }
        // Computed first: an optional-chain assignment holds `state` while its right side runs.
        let lastActive = max(state.current?.session.lastActiveAt ?? activity, activity)
        state.current?.session.lastActiveAt = lastActive
        state.lastWallClock = max(state.lastWallClock, activity)
        lastActivityWrite = activity
        pendingActivity = nil
    }

    /// Turns biometric unlock on or off for the current session and the device preference.
    /// - Parameter enabled: on or off.
    /// - Parameter domainState: the platform's opaque enrolment value (LAContext
    ///   `evaluatedPolicyDomainState`); if it differs at unlock, the user re-enrolled.
    public func setBiometricUnlock(_ enabled: Bool, domainState: [UInt8]? = nil) throws(VaultError) {
        let hold = try holdStableFile()
        defer { hold.unlock() }
        let id = state.current?.session.id
        try write("biometric") { connection, now in
            if let id {
                try SessionRecord.setBiometric(of: id, enabled: enabled, domainState: domainState, in: connection)
            }
            try VaultStateRecord.setBiometricPreference(enabled, in: connection)
            try audit(connection, enabled ? .biometricEnabled : .biometricDisabled, sessionID: id, fingerprint: nil, reason: nil, at: now)
        }
        emit(.biometricChanged(enabled))
    }

    /// Ends the current session: deletes its tokens, access cache and unlock state. The
    /// biometric preference is kept unless `policy.clearsBiometricPreferenceOnSignOut`.
    /// - Parameter reason: why, as later reported by the `missing` path (default `.signedOut`).
    /// - Parameter sessionID: when given, only that session is signed out: if another one is
    ///   current by now (a late refresh failure arriving after the next sign-in), nothing changes
    ///   and `.staleSession` is thrown.
    /// - Parameter version: when given, only that session at that token version: a refusal of a
    ///   token that another process has since rotated must not end the rotated session.
    public func signOut(reason: MissingReason = .signedOut, ifCurrent sessionID: String? = nil, atVersion version: Int64? = nil) throws(VaultError) {
        let hold = try holdStableFile()
        defer { hold.unlock() }
        try reloadIfChangedElsewhere()
        let current = state.current?.session
        if let sessionID, current?.id != sessionID { throw .staleSession }
        if let version, current?.tokenVersion != version { throw .staleSession }
        try write("signOut") { connection, now in
            if let id = current?.id, let version {
                // Under the write lock: nobody rotated between the check above and this delete.
                if try SessionRecord.tokenVersion(of: id, in: connection) != version { throw VaultError.staleSession }
            }
            if let id = current?.id { try SessionRecord.delete(id: id, in: connection) }
            // Signs out exactly the session read above, even if another process changed it since.
            guard try VaultStateRecord.clearCurrentSession(ifStill: current?.id, reason: reason.code, in: connection) else {
                throw VaultError.staleSession
            }
            if policy.clearsBiometricPreferenceOnSignOut {
                try VaultStateRecord.setBiometricPreference(false, in: connection)
            }
            try audit(connection, .signedOut, sessionID: current?.id, fingerprint: current?.refreshTokenFingerprint, reason: reason.code, at: now)
        }
        discardLoggedPages(after: "signOut")
        pendingActivity = nil
        emit(.signedOut)
        logger.info("signed out", metadata: ["vault.operation": "signOut", "reason": "\(reason.code)"])
    }

    /// Records the delegated subject (e.g. the patient a caregiver acts for). Only with a value
    /// from the server that validated the switch; nil returns to the user's own context.
    public func switchActiveSubject(to subject: String?, validatedBy proof: String) throws(VaultError) {
        let hold = try holdStableFile()
        defer { hold.unlock() }
        guard !proof.isEmpty else { throw .invalidArgument("a server validation value is required to switch the active subject") }
        guard let id = state.current?.session.id else { throw .noSession }
        try write("switchSubject") { connection, now in
            try SessionRecord.setActiveSubject(of: id, to: subject, proof: proof, in: connection)
            try audit(connection, .activeSubjectChanged, sessionID: id, fingerprint: nil, reason: subject ?? "self", at: now)
        }
        emit(.activeSubjectChanged(subject))
    }

    private func requireSession() throws(VaultError) -> Session {
        guard let session = state.current?.session else { throw .noSession }
        return session
    }

    private func holdsSameTokens(as response: TokenResponse) -> Bool {
        guard let access = state.tokens.access, access.hasSameValue(as: response.accessToken) else { return false }
        guard let incoming = response.refreshToken else { return true }
        return state.tokens.refresh?.hasSameValue(as: incoming) ?? false
    }
}

/// The current session a conditional store expects to replace: the one a sign-in saw before it
/// went to the server.
enum ExpectedCurrentSession: Sendable, Equatable {
    /// No session was current.
    case none
    /// This session (by id) was current.
    case session(String)

    init(_ id: String?) { self = id.map(ExpectedCurrentSession.session) ?? .none }

    func matches(_ currentID: String?) -> Bool {
        switch self {
        case .none: return currentID == nil || currentID == ""
        case .session(let id): return currentID == id
        }
    }
}

extension Vault {
    /// Stores a new sign-in whose response does not say who signed in (a plain RFC 6749 token
    /// response: opaque tokens, no `user`, no `sub`), under the identity the app supplies.
    /// Otherwise exactly `store(_:biometricEnabled:serverClockOffset:)`; see
    /// `TokenResponse.identified(as:)` for how the two identities combine.
    /// - Throws: `.invalidTokenResponse(.invalidField("sub"))` when the response names another subject.
    @discardableResult
    public func store(
        _ response: TokenResponse, identity: SessionIdentity, biometricEnabled: Bool? = nil,
        serverClockOffset: TimeInterval? = nil
    ) throws(VaultError) -> Session {
        let identified: TokenResponse
        do {
            identified = try response.identified(as: identity)
        } catch {
            throw .invalidTokenResponse(error)
        }
        return try store(identified, biometricEnabled: biometricEnabled, serverClockOffset: serverClockOffset)
    }
}
