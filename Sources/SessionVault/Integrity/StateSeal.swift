import Foundation

/// The keyed tag that binds the vault's current session to its generation (`vault_state.state_mac`,
/// migration 6).
///
/// Why: each page of the database carries its own HMAC, so a page copied back from an older copy
/// of the file (same key) reads as authentic. Putting back only the sessions table's page brought
/// an old refresh token and an old biometric flag back at the current generation, and the header
/// check, which compares generations, saw nothing. The seal covers, under the integrity subkey,
/// the generation, the vault id, the biometric preference and every column of the current
/// session row that a generation-advancing write sets. It is rewritten inside every such write's
/// transaction, so a consistent file always matches; a spliced page does not.
///
/// Not covered: `last_active_at` (coalesced activity, written without a new generation; an older
/// value only makes the idle check stricter) and `refresh_pending_since` (the crash mark, written
/// around a refresh; an older value at worst reads a refusal as `refreshRejected`).
enum StateSeal {
    static let label = "SessionVault state seal v1"
    /// The migration that adds the seal's columns.
    static let migrationVersion = 6

    /// The state columns covered, in this order (never reordered: the tag depends on it).
    static let stateColumns: [VaultStateRecord.Column] = [.generation, .vaultID, .biometricPreference, .currentSessionID]

    /// Where each of `stateColumns` sits in a row selected with `VaultStateRecord.selectList`:
    /// the launch appends them from the row it already read.
    static let stateColumnPositions: [Int32] = stateColumns.map(\.position)

    /// The session columns covered, in this order (never reordered: the tag depends on it).
    static let sessionColumns: [SessionRecord.Column] = [
        .id, .issuer, .subject, .tenant, .email, .displayName, .rolesJSON, .metadataJSON, .activeSubject,
        .activeSubjectProof, .tokenType, .scope, .refreshToken, .accessToken, .refreshFingerprint,
        .accessFingerprint, .accessExpiresAt, .serverExpiresAt, .refreshExpiresAt, .issuedAt,
        .absoluteDeadline, .biometricEnabled, .biometricDomainState, .tokenVersion, .createdAt
    ]

    private static func select(_ schema: String) -> String {
        // The stored tag right after the covered state columns (`storedTagPosition`).
        """
        SELECT \(stateColumns.map { "v.\($0.rawValue)" }.joined(separator: ", ")), v.\(VaultStateRecord.Column.stateMAC.rawValue),
            \(sessionColumns.map { "s.\($0.rawValue)" }.joined(separator: ", "))
        FROM \(schema).\(VaultStateRecord.table) v LEFT JOIN \(schema).\(SessionRecord.table) s
            ON s.\(SessionRecord.Column.id.rawValue) = v.\(VaultStateRecord.Column.currentSessionID.rawValue)
        WHERE v.singleton = 1
        """
    }

    /// Built once: the launch checks the seal on every open.
    private static let mainSelect = select("main")

    /// In a row of `select`: the covered state columns, the stored tag, the covered session columns.
    private static let storedTagPosition = Int32(stateColumns.count)
    private static let messagePositions: [Int32] =
        (0..<storedTagPosition) + (0..<Int32(sessionColumns.count)).map { storedTagPosition + 1 + $0 }

    /// The tag the state of `schema` should carry under `keys`, and the one it carries.
    private static func tags(_ connection: Connection, keys: VaultKeys, schema: String) throws(SQLiteError) -> (expected: [UInt8], stored: [UInt8]?)? {
        // An attached copy's statement is not cached: it would outlive the DETACH.
        let statement = schema == "main" ? try connection.cached(mainSelect) : try connection.prepare(select(schema))
        try statement.bind([])
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        var message = Message()
        for column in messagePositions { statement.withRawColumn(column) { message.append($0) } }
        return (keys.integrityTag(label, message.bytes), statement.blob(storedTagPosition))
    }

    /// Writes the seal for the state as it is now inside the caller's transaction; false when
    /// there is no state row to seal, which every caller reports as damage before it commits.
    /// - Parameter assigningID: the migration that introduces the seal gives the vault its id.
    static func seal(_ connection: Connection, keys: VaultKeys, schema: String = "main", assigningID: Bool = false) throws(SQLiteError) -> Bool {
        if assigningID {
            try VaultStateRecord.assignVaultID(Sodium.randomBytes(16), schema: schema, in: connection)
        }
        guard let tags = try tags(connection, keys: keys, schema: schema) else { return false }
        try VaultStateRecord.setStateMAC(tags.expected, schema: schema, in: connection)
        return true
    }

    /// Why a write cannot seal: the state row is gone.
    static let missingStateRow = CorruptionReason(.invariantViolation, "the vault_state row is missing")

    /// Nil when the stored seal matches the state; otherwise why it does not.
    static func mismatch(_ connection: Connection, keys: VaultKeys) throws(SQLiteError) -> CorruptionReason? {
        guard let tags = try tags(connection, keys: keys, schema: "main") else { return nil }
        return mismatch(expected: tags.expected, stored: tags.stored)
    }

    /// The same check on a message the caller built from rows it read anyway (the launch).
    static func mismatch(_ message: Message, stored: [UInt8]?, keys: VaultKeys) -> CorruptionReason? {
        mismatch(expected: keys.integrityTag(label, message.bytes), stored: stored)
    }

    private static func mismatch(expected: [UInt8], stored: [UInt8]?) -> CorruptionReason? {
        guard let stored else {
            return CorruptionReason(.rollback, "the vault's state carries no seal although its schema has one: a page from an older copy was put back")
        }
        guard stored.count == expected.count, Sodium.constantTimeEqual(stored, expected) else {
            return CorruptionReason(.rollback, "the current session does not match the state's seal: a page from an older copy of the file was put back")
        }
        return nil
    }
}

extension StateSeal {
    /// The bytes the seal's tag is computed over: the state's generation, vault id, biometric
    /// preference and current session id, then `sessionColumns` of the current session (all null
    /// when there is none), each value as it is stored.
    ///
    /// Each value is its type, length and bytes, so that no two different rows encode alike: tag
    /// 0 null, 1 an integer as 8 little-endian bytes, 2 text (a REAL as its text), 3 a blob, each
    /// tag followed by the length as 8 little-endian bytes. This encoding is the seal's format:
    /// changing it would make every sealed vault read as a rollback (`StateSealFormatTests`
    /// rebuilds it from SQL alone).
    struct Message {
        private(set) var bytes: [UInt8] = []

        init() { bytes.reserveCapacity(1024) }

        mutating func append(_ value: RawColumn) {
            switch value {
            case .null:
                put(0, UnsafeRawBufferPointer(start: nil, count: 0))
            case .integer(let number):
                bytes.append(1)
                appendLittleEndian(8)
                appendLittleEndian(UInt64(bitPattern: number))
            case .text(let text):
                put(2, text)
            case .blob(let blob):
                put(3, blob)
            }
        }

        /// The session columns of a state with no current session (what the LEFT JOIN reads).
        mutating func appendAbsentSession() {
            for _ in StateSeal.sessionColumns { append(.null) }
        }

        private mutating func put(_ tag: UInt8, _ value: UnsafeRawBufferPointer) {
            bytes.append(tag)
            appendLittleEndian(UInt64(value.count))
            bytes.append(contentsOf: value)
        }

        private mutating func appendLittleEndian(_ value: UInt64) {
            for shift in stride(from: UInt64(0), to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
        }
    }
}
