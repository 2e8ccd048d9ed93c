import Foundation

/// A `sessions` row: the redacted `Session` plus what only the file holds (the sealed token
/// blobs, the enrolment state, the subject switch's proof, the creation time).
///
/// The one owner of the table's columns (`Column`): it reads a row by column name, and it gives
/// the values an INSERT or UPDATE writes (`value(of:)`), so that the value a write leaves in
/// memory is the value it wrote to the file. Every time it holds is a whole millisecond
/// (`Date(unixMilliseconds:)`), which is what makes that true: a time goes to the file rounded
/// to the nearest millisecond, and comes back as the same `Date`.
struct SessionRecord {
    var session: Session
    var sealedRefresh: [UInt8]?
    var sealedAccess: [UInt8]?
    var biometricDomainState: [UInt8]?
    var activeSubjectProof: String?
    var createdAt: Date
    /// The sealed DPoP proof key (see `TokenColumn.proofKey`); nil for a bearer session.
    var sealedProofKey: [UInt8]?
    /// The sealed ID token (see `TokenColumn.idToken`); nil when the server sent none.
    var sealedIDToken: [UInt8]?

    static let table = "sessions"

    /// Every column, for `SELECT \(selectList) FROM sessions`.
    static let selectList = Column.allCases.map(\.rawValue).joined(separator: ", ")

    static let selectByID = "SELECT \(selectList) FROM sessions WHERE id = ?"

    /// Where each column `StateSeal` covers sits in a row selected with `selectList`, so that a
    /// launch checks the seal on the row it already read instead of selecting it again.
    static let sealedColumnPositions: [Int32] = StateSeal.sessionColumns.map(\.position)

    /// A record of a sign-in about to be stored.
    init(session: Session, sealed: SealedTokens, createdAt: Date) {
        self.session = session
        self.sealedRefresh = sealed.refresh
        self.sealedAccess = sealed.access
        self.createdAt = createdAt
    }

    /// Reads the row the statement is on (selected with `selectList`).
    init(reading row: Statement) throws(CorruptionReason) {
        func text(_ column: Column) -> String? { row.text(column.position) }
        func integer(_ column: Column) -> Int64 { row.int64(column.position) }
        func date(_ column: Column) -> Date? { row.optionalInt64(column.position).map(Date.init(unixMilliseconds:)) }
        guard let id = text(.id), let subject = text(.subject) else {
            throw CorruptionReason(.invariantViolation, "a session row has no id or subject")
        }
        guard let roles = text(.rolesJSON).flatMap({ RolesJSON.decode($0) }) else {
            throw CorruptionReason(.invariantViolation, "session \(id) has unreadable roles")
        }
        let identity = SessionIdentity(
            subject: subject, issuer: text(.issuer), tenant: text(.tenant), email: text(.email),
            displayName: text(.displayName), roles: roles, metadataJSON: text(.metadataJSON) ?? "{}")
        session = Session(
            id: id, identity: identity, activeSubject: text(.activeSubject), tokenType: text(.tokenType) ?? "bearer", scope: text(.scope),
            refreshTokenFingerprint: text(.refreshFingerprint).map(Fingerprint.init(hex:)),
            accessTokenFingerprint: text(.accessFingerprint).map(Fingerprint.init(hex:)),
            accessExpiresAt: date(.accessExpiresAt), serverExpiresAt: date(.serverExpiresAt), refreshExpiresAt: date(.refreshExpiresAt),
            issuedAt: Date(unixMilliseconds: integer(.issuedAt)), absoluteDeadline: date(.absoluteDeadline),
            lastActiveAt: Date(unixMilliseconds: integer(.lastActiveAt)), biometricEnabled: integer(.biometricEnabled) != 0,
            tokenVersion: integer(.tokenVersion), refreshPendingSince: date(.refreshPendingSince))
        session.accessIssuedAt = date(.accessIssuedAt)
        sealedRefresh = row.blob(Column.refreshToken.position)
        sealedAccess = row.blob(Column.accessToken.position)
        biometricDomainState = row.blob(Column.biometricDomainState.position)
        activeSubjectProof = text(.activeSubjectProof)
        createdAt = Date(unixMilliseconds: integer(.createdAt))
        sealedProofKey = row.blob(Column.proofKey.position)
        session.proofKeyThumbprint = text(.proofJKT)
        session.refreshRefusedSince = date(.refreshRefusedSince)
        sealedIDToken = row.blob(Column.idToken.position)
        try checkInvariants()
    }

    /// The value `column` holds in the file for this record.
    func value(of column: Column) -> SQLValue {
        func time(_ date: Date?) -> SQLValue { date.map { .integer(UnixMilliseconds.from(seconds: $0.timeIntervalSince1970)) } ?? .null }
        let identity = session.identity
        switch column {
        case .id: return .text(session.id)
        case .issuer: return identity.issuer.sqlValue
        case .subject: return .text(identity.subject)
        case .tenant: return identity.tenant.sqlValue
        case .email: return identity.email.sqlValue
        case .displayName: return identity.displayName.sqlValue
        case .rolesJSON: return .text(RolesJSON.encode(identity.roles))
        case .metadataJSON: return .text(identity.metadataJSON)
        case .activeSubject: return session.activeSubject.sqlValue
        case .activeSubjectProof: return activeSubjectProof.sqlValue
        case .tokenType: return .text(session.tokenType)
        case .scope: return session.scope.sqlValue
        case .refreshToken: return sealedRefresh.sqlValue
        case .accessToken: return sealedAccess.sqlValue
        case .refreshFingerprint: return session.refreshTokenFingerprint.map { .text($0.hex) } ?? .null
        case .accessFingerprint: return session.accessTokenFingerprint.map { .text($0.hex) } ?? .null
        case .accessExpiresAt: return time(session.accessExpiresAt)
        case .serverExpiresAt: return time(session.serverExpiresAt)
        case .refreshExpiresAt: return time(session.refreshExpiresAt)
        case .issuedAt: return time(session.issuedAt)
        case .absoluteDeadline: return time(session.absoluteDeadline)
        case .lastActiveAt: return time(session.lastActiveAt)
        case .biometricEnabled: return .integer(session.biometricEnabled ? 1 : 0)
        case .biometricDomainState: return biometricDomainState.sqlValue
        case .tokenVersion: return .integer(session.tokenVersion)
        case .refreshPendingSince: return time(session.refreshPendingSince)
        case .createdAt: return time(createdAt)
        case .accessIssuedAt: return time(session.accessIssuedAt)
        case .proofKey: return sealedProofKey.sqlValue
        case .proofJKT: return session.proofKeyThumbprint.sqlValue
        case .refreshRefusedSince: return time(session.refreshRefusedSince)
        case .idToken: return sealedIDToken.sqlValue
        }
    }

    /// Inserts this record as a new row of `schema`'s sessions table.
    func insert(into connection: Connection, schema: String = "main") throws(SQLiteError) {
        let columns = Column.allCases
        try connection.run(
            """
            INSERT INTO \(schema).sessions (\(Self.selectList)) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))
            """, columns.map(value(of:)))
    }

    /// Writes `columns` of this record over its row in `schema`, only where `condition` (SQL,
    /// with `conditionValues`) also holds; returns whether the row was written.
    func update(
        _ columns: [Column], in connection: Connection, schema: String = "main",
        where condition: String = "1", _ conditionValues: [SQLValue] = []
    ) throws(SQLiteError) -> Bool {
        let assignments = columns.map { "\($0.rawValue) = ?" }.joined(separator: ", ")
        try connection.run(
            "UPDATE \(schema).sessions SET \(assignments) WHERE id = ? AND (\(condition))",
            columns.map(value(of:)) + [.text(session.id)] + conditionValues)
        return connection.changes == 1
    }

    /// Values that contradict each other mean the row was altered or half-written.
    func checkInvariants() throws(CorruptionReason) {
        let id = session.id
        // The vault never writes a refresh expiry before the issue time (rotation clamps it), so
        // one in the file is damage. The access expiry is not checked the same way: a server may
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
        // A key without the thumbprint the server bound: nothing could check that it is the
        // right key. (A thumbprint without its key is a lost key, not damage: see
        // `MissingReason.proofKeyLost`.)
        if sealedProofKey != nil && session.proofKeyThumbprint == nil {
            throw CorruptionReason(.invariantViolation, "session \(id): a proof key is stored without its thumbprint")
        }
    }

    /// Opens the sealed proof key; nil when none is stored.
    func openProofKey(with keys: VaultKeys) throws(CorruptionReason) -> SecretBytes? {
        guard let sealedProofKey else { return nil }
        let ad = TokenColumn.proofKey.associatedData(sessionID: session.id, tokenVersion: 0)
        guard let secret = try? FieldCipher.open(sealedProofKey, key: keys.fieldKey, associatedData: ad) else {
            throw CorruptionReason(.recordAuthenticationFailed, "session \(session.id): sealed proof_key does not open (the session's proof key is lost)")
        }
        return secret
    }

    /// Opens the sealed ID token; nil when none is stored, or when it does not open: it is only a
    /// hint for the end-session URL, never a credential, so a seal an older library's rekey left
    /// under the old key is no damage.
    func openIDToken(with keys: VaultKeys) -> Token? {
        guard let sealedIDToken else { return nil }
        let ad = TokenColumn.idToken.associatedData(sessionID: session.id, tokenVersion: 0)
        guard let secret = try? FieldCipher.open(sealedIDToken, key: keys.fieldKey, associatedData: ad) else { return nil }
        return Token(secret: secret, fingerprint: nil)
    }

    /// Seals an ID token for the session `sessionID`.
    static func sealIDToken(_ token: Token, sessionID: String, keys: VaultKeys) -> [UInt8] {
        FieldCipher.seal(token.secret, key: keys.fieldKey, associatedData: TokenColumn.idToken.associatedData(sessionID: sessionID, tokenVersion: 0))
    }

    /// Seals a proof key's stored form for the session `sessionID`.
    static func sealProofKey(_ stored: SecretBytes, sessionID: String, keys: VaultKeys) -> [UInt8] {
        FieldCipher.seal(stored, key: keys.fieldKey, associatedData: TokenColumn.proofKey.associatedData(sessionID: sessionID, tokenVersion: 0))
    }

    /// Opens both sealed tokens and checks them against their stored fingerprints.
    func openTokens(with keys: VaultKeys) throws(CorruptionReason) -> OpenedTokens {
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
        return OpenedTokens(
            refresh: try open(sealedRefresh, .refreshToken, session.refreshTokenFingerprint),
            access: try open(sealedAccess, .accessToken, session.accessTokenFingerprint))
    }

    /// This record with `sealed` as its tokens and their fingerprints.
    func withTokens(_ sealed: SealedTokens) -> SessionRecord {
        var record = self
        record.sealedRefresh = sealed.refresh
        record.sealedAccess = sealed.access
        record.session.refreshTokenFingerprint = sealed.refreshFingerprint
        record.session.accessTokenFingerprint = sealed.accessFingerprint
        return record
    }
}

/// The opened tokens of the current session, kept in locked memory while the vault is open.
package struct OpenedTokens: Sendable {
    package var refresh: Token?
    package var access: Token?
}

/// A session's tokens sealed for one row and token version (`TokenColumn.associatedData`), with
/// the fingerprints stored beside them.
struct SealedTokens {
    let refresh: [UInt8]?
    let access: [UInt8]?
    let refreshFingerprint: Fingerprint?
    let accessFingerprint: Fingerprint?

    init(refresh: Token?, access: Token?, sessionID: String, tokenVersion: Int64, keys: VaultKeys) {
        func seal(_ token: Token?, _ column: TokenColumn) -> [UInt8]? {
            token.map {
                FieldCipher.seal($0.secret, key: keys.fieldKey, associatedData: column.associatedData(sessionID: sessionID, tokenVersion: tokenVersion))
            }
        }
        self.refresh = seal(refresh, .refreshToken)
        self.access = seal(access, .accessToken)
        self.refreshFingerprint = refresh.map { keys.fingerprint(of: $0.secret) }
        self.accessFingerprint = access.map { keys.fingerprint(of: $0.secret) }
    }
}

/// The sealed columns (tokens and the proof key); part of each seal's associated data.
enum TokenColumn: String {
    case refreshToken = "refresh_token"
    case accessToken = "access_token"
    /// The DPoP proof key (sealed with token version 0: it outlives every rotation).
    case proofKey = "proof_key"
    /// The ID token (sealed with token version 0, like the proof key).
    case idToken = "id_token"

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
