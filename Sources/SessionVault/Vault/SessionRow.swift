import Foundation

/// A `sessions` row as stored: the redacted `Session` plus the sealed token blobs.
struct SessionRow {
    var session: Session
    var sealedRefresh: [UInt8]?
    var sealedAccess: [UInt8]?
    var biometricDomainState: [UInt8]?

    static let columns = """
        id, issuer, subject, tenant, email, display_name, roles_json, metadata_json, active_subject, token_type, scope, \
        refresh_token, access_token, refresh_fingerprint, access_fingerprint, access_expires_at, server_expires_at, \
        refresh_expires_at, issued_at, absolute_deadline, last_active_at, biometric_enabled, token_version, \
        refresh_pending_since, biometric_domain_state, active_subject_proof, created_at
        """

    /// Where each column `StateSeal` covers sits in a statement selecting `columns`, so that a
    /// launch checks the seal on the row it already read instead of selecting it again.
    static let sealedColumnIndices: [Int32] = {
        let names = columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        return StateSeal.sessionColumns.map { column in names.firstIndex(of: column).map { Int32($0) } ?? -1 }
    }()

    static let selectByID = "SELECT \(columns) FROM sessions WHERE id = ?"

    /// Reads the row the statement is on (selected with `columns`).
    init(_ row: Statement) throws(CorruptionReason) {
        guard let id = row.text(0), let subject = row.text(2) else {
            throw CorruptionReason(.invariantViolation, "a session row has no id or subject")
        }
        let roles = row.text(6).flatMap { RolesJSON.decode($0) }
        guard let roles else { throw CorruptionReason(.invariantViolation, "session \(id) has unreadable roles") }
        let identity = SessionIdentity(subject: subject, issuer: row.text(1), tenant: row.text(3), email: row.text(4),
                                       displayName: row.text(5), roles: roles, metadataJSON: row.text(7) ?? "{}")
        session = Session(
            id: id, identity: identity, activeSubject: row.text(8), tokenType: row.text(9) ?? "bearer", scope: row.text(10),
            refreshTokenFingerprint: row.text(13).map(Fingerprint.init(hex:)),
            accessTokenFingerprint: row.text(14).map(Fingerprint.init(hex:)),
            accessExpiresAt: row.optionalInt64(15).map(Date.init(unixMilliseconds:)),
            serverExpiresAt: row.optionalInt64(16).map(Date.init(unixMilliseconds:)),
            refreshExpiresAt: row.optionalInt64(17).map(Date.init(unixMilliseconds:)),
            issuedAt: Date(unixMilliseconds: row.int64(18)),
            absoluteDeadline: row.optionalInt64(19).map(Date.init(unixMilliseconds:)),
            lastActiveAt: Date(unixMilliseconds: row.int64(20)),
            biometricEnabled: row.int64(21) != 0,
            tokenVersion: row.int64(22),
            refreshPendingSince: row.optionalInt64(23).map(Date.init(unixMilliseconds:)))
        sealedRefresh = row.blob(11)
        sealedAccess = row.blob(12)
        biometricDomainState = row.blob(24)
        try checkInvariants()
    }

    /// Values that contradict each other mean the row was altered or half-written.
    func checkInvariants() throws(CorruptionReason) {
        let id = session.id
        // The vault never writes a refresh expiry before the issue time (rotate clamps it), so one
        // in the file is damage. The access expiry is not checked the same way: a server may
        // hand over an access token that is already expired, and a clock moved back makes a
        // later receipt time earlier than the issue time; both are expiry, not corruption.
        if let refreshExpiry = session.refreshExpiresAt, refreshExpiry < session.issuedAt {
            throw CorruptionReason(.invariantViolation, "session \(id): refresh expiry is before issue time")
        }
        if session.tokenVersion < 1 {
            throw CorruptionReason(.invariantViolation, "session \(id): token version \(session.tokenVersion) is not positive")
        }
        if (sealedRefresh == nil) != (session.refreshTokenFingerprint == nil) || (sealedAccess == nil) != (session.accessTokenFingerprint == nil) {
            throw CorruptionReason(.invariantViolation, "session \(id): a token and its fingerprint disagree")
        }
    }

    /// Opens both sealed tokens and checks them against their stored fingerprints.
    func openTokens(with keys: VaultKeys) throws(CorruptionReason) -> StoredTokens {
        func open(_ sealed: [UInt8]?, _ column: TokenColumn, _ expected: Fingerprint?) throws(CorruptionReason) -> Token? {
            guard let sealed else { return nil }
            let ad = column.associatedData(sessionID: session.id, tokenVersion: session.tokenVersion)
            guard let secret = try? FieldCipher.open(sealed, key: keys.fieldKey, associatedData: ad) else {
                throw CorruptionReason(.recordAuthenticationFailed, "session \(session.id): sealed \(column.rawValue) does not open")
            }
            let fingerprint = keys.fingerprint(of: secret)
            guard fingerprint == expected else {
                throw CorruptionReason(.recordAuthenticationFailed, "session \(session.id): \(column.rawValue) does not match its fingerprint")
            }
            return Token(secret: secret, fingerprint: fingerprint)
        }
        return StoredTokens(refresh: try open(sealedRefresh, .refreshToken, session.refreshTokenFingerprint),
                            access: try open(sealedAccess, .accessToken, session.accessTokenFingerprint))
    }
}

/// The opened tokens of the current session, kept in locked memory while the vault is open.
struct StoredTokens: Sendable {
    var refresh: Token?
    var access: Token?
}

/// The token columns; part of each seal's associated data.
enum TokenColumn: String {
    case refreshToken = "refresh_token"
    case accessToken = "access_token"

    /// session id, column and token version: a seal moved to another row, column or version fails.
    func associatedData(sessionID: String, tokenVersion: Int64) -> [UInt8] {
        // Appended byte by byte rather than interpolated: verify builds two per stored session.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        bytes.append(contentsOf: Self.prefix)
        bytes.append(contentsOf: sessionID.utf8)
        bytes.append(UInt8(ascii: "|"))
        bytes.append(contentsOf: rawValue.utf8)
        bytes.append(UInt8(ascii: "|"))
        bytes.append(contentsOf: String(tokenVersion).utf8)
        return bytes
    }

    private static let prefix: [UInt8] = Array("sessionvault/v1|".utf8)
}

extension Date {
    /// A date from Unix milliseconds (the vault's stored time unit).
    init(unixMilliseconds: Int64) { self.init(timeIntervalSince1970: Double(unixMilliseconds) / 1000) }

    /// Unix milliseconds, rounded down; saturating, so a clock set absurdly far off cannot trap.
    var unixMilliseconds: Int64 { UnixMilliseconds.clamped(timeIntervalSince1970 * 1000) }
}
