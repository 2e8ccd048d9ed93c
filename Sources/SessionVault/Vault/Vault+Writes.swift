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
        let hold = try holdStableFile()
        defer { hold.unlock() }
        guard let identity = response.identity else { throw .invalidTokenResponse(.missingField("user.id or a sub claim")) }
        do { try response.checkRanges() } catch { throw .invalidTokenResponse(error) }
        try refreshIfChangedElsewhere()
        if let current = state.current, current.session.identity == identity, holdsSameTokens(as: response),
           biometricEnabled.map({ $0 == current.session.biometricEnabled }) ?? true {
            return current.session
        }
        let id = Hex.encode(Sodium.randomBytes(16))
        let sealed = try seal(response, keepingRefresh: nil, sessionID: id, tokenVersion: 1)
        let biometric = biometricEnabled ?? state.biometricPreference
        let previous = state.current?.session.id
        try write("store") { connection, now in
            let times = TokenTimes(response, receivedAt: now, policy: policy, serverClockOffset: serverClockOffset ?? state.serverClockOffset)
            if let previous {
                try connection.run("DELETE FROM refresh_lease WHERE session_id = ?", [.text(previous)])
                try connection.run("DELETE FROM sessions WHERE id = ?", [.text(previous)])
            }
            let rolesJSON = String(decoding: (try? JSONEncoder().encode(identity.roles)) ?? Data("[]".utf8), as: UTF8.self)
            try connection.run("""
                INSERT INTO sessions (id, issuer, subject, tenant, email, display_name, roles_json, metadata_json, token_type, scope,
                    refresh_token, access_token, refresh_fingerprint, access_fingerprint, access_expires_at, server_expires_at,
                    refresh_expires_at, issued_at, absolute_deadline, last_active_at, biometric_enabled, token_version, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?)
                """, [
                    .text(id), identity.issuer.sqlValue, .text(identity.subject), identity.tenant.sqlValue, identity.email.sqlValue,
                    identity.displayName.sqlValue, .text(rolesJSON), .text(identity.metadataJSON), .text(response.tokenType),
                    response.scope.sqlValue, sealed.refresh.sqlValue, .blob(sealed.access), sealed.refreshFingerprint.map { .text($0.hex) } ?? .null,
                    .text(sealed.accessFingerprint.hex), times.accessExpiresAt.sqlValue, times.serverExpiresAt.sqlValue,
                    times.refreshExpiresAt.sqlValue, .integer(now.unixMilliseconds), times.absoluteDeadline.sqlValue,
                    .integer(now.unixMilliseconds), .integer(biometric ? 1 : 0), .integer(now.unixMilliseconds),
                ])
            try connection.run("""
                UPDATE vault_state SET current_session_id = ?, empty_reason = '', biometric_preference = ?,
                    server_clock_offset = ? WHERE singleton = 1
                """, [.text(id), .integer(biometric ? 1 : 0), .integer(UnixMilliseconds.from(seconds: serverClockOffset ?? state.serverClockOffset))])
            try audit(connection, .stored, sessionID: id, fingerprint: sealed.refreshFingerprint ?? sealed.accessFingerprint, reason: nil, at: now)
        }
        try? FileIO.removeIfPresent(files.tombstone)
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
    public func rotate(_ response: TokenResponse, expectedSessionID: String? = nil, expectedVersion: Int64? = nil,
                       serverClockOffset: TimeInterval? = nil) throws(VaultError) -> Session {
        do { try response.checkRanges() } catch { throw .invalidTokenResponse(error) }
        let hold = try holdStableFile()
        defer { hold.unlock() }
        try refreshIfChangedElsewhere()
        // With no session there is nothing to rotate; a caller that read a session which has
        // since gone learns that its result is stale.
        guard let current = state.current else { throw expectedSessionID == nil ? .noSession : .staleSession }
        if let expectedSessionID, expectedSessionID != current.session.id { throw .staleSession }
        let version = expectedVersion ?? current.session.tokenVersion
        guard version == current.session.tokenVersion else { throw .staleSession }
        if let identity = response.identity, identity.subject != current.session.identity.subject {
            throw .subjectMismatch
        }
        if current.session.refreshPendingSince == nil, holdsSameTokens(as: response) { return current.session }
        let id = current.session.id
        let sealed = try seal(response, keepingRefresh: state.tokens.refresh, sessionID: id, tokenVersion: version + 1)
        let offset = serverClockOffset ?? state.serverClockOffset
        let refreshToken = response.refreshToken ?? state.tokens.refresh
        let apply: (inout VaultState, UInt64, Date) -> Void = { state, generation, now in
            guard var row = state.current else { return }
            row.session = row.session.rotated(response, times: TokenTimes(response, receivedAt: now, policy: self.policy, serverClockOffset: offset),
                                              sealed: sealed.fingerprints, version: version + 1)
            row.sealedRefresh = sealed.refresh
            row.sealedAccess = sealed.access
            state.current = row
            state.tokens = StoredTokens(refresh: refreshToken.map { Token(secret: $0.secret, fingerprint: sealed.refreshFingerprint) },
                                        access: Token(secret: response.accessToken.secret, fingerprint: sealed.accessFingerprint))
            state.generation = generation
            state.serverClockOffset = offset
        }
        try write("rotate", apply: apply) { connection, now in
            let times = TokenTimes(response, receivedAt: now, policy: policy, serverClockOffset: offset)
            try connection.run("""
                UPDATE sessions SET refresh_token = ?, access_token = ?, refresh_fingerprint = ?, access_fingerprint = ?,
                    access_expires_at = ?, server_expires_at = ?, refresh_expires_at = coalesce(max(?, issued_at), refresh_expires_at),
                    token_type = ?, scope = coalesce(?, scope), token_version = ?, refresh_pending_since = NULL
                WHERE id = ? AND token_version = ?
                    AND id = (SELECT current_session_id FROM vault_state WHERE singleton = 1)
                """, [
                    sealed.refresh.sqlValue, .blob(sealed.access), sealed.refreshFingerprint.map { .text($0.hex) } ?? .null,
                    .text(sealed.accessFingerprint.hex), times.accessExpiresAt.sqlValue, times.serverExpiresAt.sqlValue,
                    response.refreshToken == nil ? .null : times.refreshExpiresAt.sqlValue, .text(response.tokenType),
                    response.scope.sqlValue, .integer(version + 1), .text(id), .integer(version),
                ])
            guard connection.changes == 1 else { throw VaultError.staleSession }
            // The refresh this result settles is over: its lease goes in the same transaction.
            try connection.run("DELETE FROM refresh_lease WHERE session_id = ?", [.text(id)])
            if let identity = response.identity {
                try connection.run("UPDATE sessions SET email = coalesce(?, email), display_name = coalesce(?, display_name) WHERE id = ?",
                                   [identity.email.sqlValue, identity.displayName.sqlValue, .text(id)])
            }
            if serverClockOffset != nil {
                try connection.run("UPDATE vault_state SET server_clock_offset = ? WHERE singleton = 1", [.integer(UnixMilliseconds.from(seconds: offset))])
            }
            try audit(connection, .rotated, sessionID: id, fingerprint: sealed.refreshFingerprint, reason: nil, at: now)
        }
        emit(.tokenUpdated(sealed.refreshFingerprint))
        logger.info("rotated tokens", metadata: ["vault.operation": "rotate", "session.id": "\(id)", "token.fp": "\(sealed.refreshFingerprint?.hex ?? "-")"])
        return try requireSession()
    }

    /// Records user activity (for the idle timeout). Called on every interaction, so it is
    /// coalesced: written at most once per `policy.touchCoalescingInterval`, at synchronous=NORMAL
    /// (losing the last few seconds of activity to a power cut only makes the idle check stricter).
    public func touch() throws(VaultError) {
        let now = clock()
        pendingActivity = now
        if let last = lastActivityWrite, now.timeIntervalSince(last) < policy.touchCoalescingInterval, now >= last { return }
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
                try connection.run("UPDATE sessions SET last_active_at = max(last_active_at, ?) WHERE id = ?", [.integer(activity.unixMilliseconds), .text(id)])
                try connection.run("UPDATE vault_state SET last_wall_clock = max(last_wall_clock, ?) WHERE singleton = 1", [.integer(activity.unixMilliseconds)])
            }
        } catch {
            throw mapWriteError(error)
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
                try connection.run("UPDATE sessions SET biometric_enabled = ?, biometric_domain_state = ? WHERE id = ?",
                                   [.integer(enabled ? 1 : 0), enabled ? domainState.sqlValue : .null, .text(id)])
            }
            try connection.run("UPDATE vault_state SET biometric_preference = ? WHERE singleton = 1", [.integer(enabled ? 1 : 0)])
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
        try refreshIfChangedElsewhere()
        let current = state.current?.session
        if let sessionID, current?.id != sessionID { throw .staleSession }
        if let version, current?.tokenVersion != version { throw .staleSession }
        try write("signOut") { connection, now in
            if let id = current?.id, let version {
                // Under the write lock: nobody rotated between the check above and this delete.
                let row = try connection.cached("SELECT token_version FROM sessions WHERE id = ?")
                try row.bind([.text(id)])
                let stillThere = try row.step() && row.int64(0) == version
                row.reset()
                if !stillThere { throw VaultError.staleSession }
            }
            if let id = current?.id {
                try connection.run("DELETE FROM refresh_lease WHERE session_id = ?", [.text(id)])
                try connection.run("DELETE FROM sessions WHERE id = ?", [.text(id)])
            }
            // Signs out exactly the session read above, even if another process changed it since.
            try connection.run("UPDATE vault_state SET current_session_id = NULL, empty_reason = ? WHERE singleton = 1 AND current_session_id IS ?",
                               [.text(reason.code), (current?.id).sqlValue])
            if connection.changes == 0 { throw VaultError.staleSession }
            if policy.clearsBiometricPreferenceOnSignOut {
                try connection.run("UPDATE vault_state SET biometric_preference = 0 WHERE singleton = 1")
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
            try connection.run("UPDATE sessions SET active_subject = ?, active_subject_proof = ? WHERE id = ?",
                               [subject.sqlValue, .text(proof), .text(id)])
            try audit(connection, .activeSubjectChanged, sessionID: id, fingerprint: nil, reason: subject ?? "self", at: now)
        }
        emit(.activeSubjectChanged(subject))
    }

    // MARK: Internals

    /// How often a sign-out tries to empty the log, and the pause between tries (the write lock
    /// is free during it): 5 tries within about 80 ms.
    static let checkpointAttempts = 5
    static let checkpointPauseMicroseconds: UInt32 = 20_000

    /// Checkpoints the write-ahead log into the database and truncates it to zero bytes, durably.
    ///
    /// Why: secure_delete zeroes a deleted row in the database's pages, but the log keeps every
    /// earlier version of a page it holds, and the page key and field key survive a sign-out: a
    /// copy of the database, its log and the key would give the signed-out tokens back. After
    /// the checkpoint the database holds only the zeroed pages and the log holds nothing.
    /// A reader in another process that still uses an older snapshot keeps the checkpoint from
    /// finishing (busy): then the frames stay until the next sign-out or replacing store, and a
    /// warning is logged. The commit itself stands either way.
    ///
    /// The checkpoint never waits while it holds the write lock: a TRUNCATE checkpoint takes the
    /// write lock first and then waits for readers, so with the connection's busy timeout it
    /// could keep every other process from writing for up to that timeout, and their own waits
    /// (the same length) ran out first: four processes storing, reading and signing out at once
    /// saw "database is busy" (ContentionTests). It is tried a few times without a busy handler,
    /// with short pauses in which the lock is free, and otherwise left to the next sign-out.
    func discardLoggedPages(after operation: String) {
        guard let connection else { return }
        var complete = false
        connection.setBusyTimeout(milliseconds: 0)
        defer { connection.setBusyTimeout(milliseconds: VaultOpener.busyTimeoutMilliseconds) }
        for attempt in 0..<Self.checkpointAttempts where !complete {
            if attempt > 0 { usleep(Self.checkpointPauseMicroseconds) }
            do {
                let statement = try connection.prepare("PRAGMA wal_checkpoint(TRUNCATE)")
                // One row: busy (1 when it could not finish), frames in the log, frames checkpointed.
                if try statement.step() { complete = statement.int64(0) == 0 }
                statement.reset()
                // SQLite truncates the log without syncing it; the truncation must survive a crash.
                if complete, FileIO.exists(files.wal) { try FileIO.syncFile(files.wal) }
            } catch {
                complete = false
            }
        }
        if !complete {
            logger.warning("write-ahead log not truncated; earlier pages remain until the next checkpoint",
                           metadata: ["vault.operation": "\(operation)"])
        }
    }

    /// Runs `body` in one immediate, durable transaction that also advances the generation, then
    /// re-reads the state and records the generation in the header.
    ///
    /// - Parameter apply: when given, the in-memory state is brought forward by this closure
    ///   (with the committed generation) instead of being read back from the file: the hot
    ///   rotate path knows exactly what it wrote. It falls back to a read when another process
    ///   committed since this one last looked, so nothing of theirs is missed.
    @discardableResult
    func write<T>(_ operation: String, apply: ((inout VaultState, UInt64, Date) -> Void)? = nil,
                  _ body: (Connection, Date) throws -> T) throws(VaultError) -> T {
        let connection = try liveConnection()
        let now = clock()
        let result: T
        var committedGeneration: UInt64?
        do {
            result = try connection.transaction {
                // Inside the write lock: nobody else can commit until this transaction ends.
                let changedElsewhere = try apply != nil && (connection.scalarInt("PRAGMA data_version") ?? 0) != lastDataVersion
                let value = try body(connection, now)
                if let activity = pendingActivity, let id = state.current?.session.id {
                    try connection.run("UPDATE sessions SET last_active_at = max(last_active_at, ?) WHERE id = ?", [.integer(activity.unixMilliseconds), .text(id)])
                }
                try connection.run("UPDATE vault_state SET generation = generation + 1, last_wall_clock = max(last_wall_clock, ?) WHERE singleton = 1",
                                   [.integer(now.unixMilliseconds)])
                // Last: the seal covers what the body and the generation step wrote.
                try StateSeal.seal(connection, keys: keys)
                if apply != nil && !changedElsewhere {
                    committedGeneration = try connection.scalarInt("SELECT generation FROM vault_state WHERE singleton = 1").map { UInt64($0) }
                }
                return value
            }
        } catch {
            throw mapWriteError(error)
        }
        if let apply, let committedGeneration {
            apply(&state, committedGeneration, now)
            if let activity = pendingActivity {
                let lastActive = max(state.current?.session.lastActiveAt ?? activity, activity)
                state.current?.session.lastActiveAt = lastActive
            }
            state.lastWallClock = max(state.lastWallClock, now)
        } else {
            try reloadState(from: connection)
            lastDataVersion = state.dataVersion
        }
        do {
            try header.recordGeneration(state.generation)
        } catch {
            // The commit stands; a lagging header is repaired on the next open.
            logger.warning("header generation not recorded", metadata: ["vault.operation": "\(operation)", "error": "\(error)"])
        }
        GenerationWitness.store(state, keys: keys, in: keyProvider)
        return result
    }

    /// Re-reads the state row and current session (opening its tokens) after a change.
    func reloadState(from connection: Connection) throws(VaultError) {
        do {
            // Same guard as at open: SQLCipher 3 hands a page that fails its HMAC over as zeroes.
            state = try connection.readCheckingPageAuthentication { try VaultState.load(from: connection, keys: keys) }
        } catch {
            throw mapWriteError(error)
        }
    }

    func mapWriteError(_ error: any Error) -> VaultError {
        switch error {
        case let error as VaultError: return error
        case let error as SQLiteError where error.isOutOfSpace: return .storageFull(error.description)
        case let error as SQLiteError: return CorruptionDiagnosis.classify(error, files: files)
        case is PageAuthenticationFailure:
            return .corrupted(CorruptionReason(.damagedPage, "a page read after a change failed authentication (HMAC)"))
        case let error as CorruptionReason: return .corrupted(error)
        case let error as FileIOError: return .io(error)
        case let error as CryptoError: return .crypto(error)
        default: return .internalFault("\(error)")
        }
    }

    func audit(_ connection: Connection, _ event: AuditEvent.Kind, sessionID: String?, fingerprint: Fingerprint?, reason: String?, at time: Date) throws {
        // Capped as a ring (see Migrations/0003): the log is for support, not an archive, and
        // must not grow the file forever.
        try connection.run("""
            INSERT OR REPLACE INTO audit_log (slot, seq, at, event, session_id, fingerprint, reason)
            SELECT (audit_seq + 1) % ?, audit_seq + 1, ?, ?, ?, ?, ? FROM vault_state WHERE singleton = 1
            """, [.integer(Int64(max(policy.auditLogCapacity, 1))), .integer(time.unixMilliseconds), .text(event.code), sessionID.sqlValue,
                  fingerprint.map { .text($0.hex) } ?? .null, reason.sqlValue])
        try connection.run("UPDATE vault_state SET audit_seq = audit_seq + 1 WHERE singleton = 1")
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

    private struct SealedTokens {
        let refresh: [UInt8]?
        let access: [UInt8]
        let refreshFingerprint: Fingerprint?
        let accessFingerprint: Fingerprint

        var fingerprints: (refresh: Fingerprint?, access: Fingerprint) { (refreshFingerprint, accessFingerprint) }
    }

    private func seal(_ response: TokenResponse, keepingRefresh kept: Token?, sessionID: String, tokenVersion: Int64) throws(VaultError) -> SealedTokens {
        let refresh = response.refreshToken ?? kept
        return SealedTokens(
            refresh: refresh.map { FieldCipher.seal($0.secret, key: keys.fieldKey, associatedData: TokenColumn.refreshToken.associatedData(sessionID: sessionID, tokenVersion: tokenVersion)) },
            access: FieldCipher.seal(response.accessToken.secret, key: keys.fieldKey, associatedData: TokenColumn.accessToken.associatedData(sessionID: sessionID, tokenVersion: tokenVersion)),
            refreshFingerprint: refresh.map { keys.fingerprint(of: $0.secret) },
            accessFingerprint: keys.fingerprint(of: response.accessToken.secret))
    }
}

/// Expiry times of a token response, computed against the local time of receipt.
struct TokenTimes {
    let accessExpiresAt: Int64?
    let serverExpiresAt: Int64?
    let refreshExpiresAt: Int64?
    let absoluteDeadline: Int64?

    // Saturating arithmetic throughout: the inputs are a server's numbers (range-checked by
    // `TokenResponse.checkRanges`, but a caller may build a response by hand), the app's clock
    // and its policy; none of them may trap the process after a refresh token was spent.
    init(_ response: TokenResponse, receivedAt now: Date, policy: ResumePolicy, serverClockOffset: TimeInterval) {
        let receipt = now.unixMilliseconds
        if let expiresIn = response.expiresIn {
            accessExpiresAt = UnixMilliseconds.sum(receipt, UnixMilliseconds.from(seconds: expiresIn))
        } else if let expiresAt = response.expiresAt {
            // Only a server time is known: move it onto the local clock.
            accessExpiresAt = UnixMilliseconds.sum(UnixMilliseconds.from(seconds: expiresAt), -UnixMilliseconds.from(seconds: serverClockOffset))
        } else {
            accessExpiresAt = nil
        }
        serverExpiresAt = response.expiresAt.map { UnixMilliseconds.from(seconds: $0) }
        // Never before the receipt: the next open refuses a refresh expiry before the issue time
        // as damage (SessionRow.checkInvariants), so what is written here must satisfy it.
        let refreshLifetime = response.refreshExpiresIn.map { UnixMilliseconds.from(seconds: $0) }
            ?? UnixMilliseconds.from(seconds: policy.refreshTokenLifetime)
        refreshExpiresAt = UnixMilliseconds.sum(receipt, max(refreshLifetime, 0))
        absoluteDeadline = policy.absoluteLifetime.map { UnixMilliseconds.sum(receipt, UnixMilliseconds.from(seconds: $0)) }
    }
}
