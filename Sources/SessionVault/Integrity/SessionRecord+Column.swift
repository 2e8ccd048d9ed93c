import Foundation

extension SessionRecord {
    /// The columns of `sessions` (Migrations/0001), each named once. Every statement this type
    /// builds selects or writes them in this order, so a column's place in a row follows from
    /// its name; a new column is a case here and a line in `SessionRecord.init(reading:)` and
    /// `value(of:)`, nowhere else.
    enum Column: String, CaseIterable {
        case id
        case issuer
        case subject
        case tenant
        case email
        case displayName = "display_name"
        case rolesJSON = "roles_json"
        case metadataJSON = "metadata_json"
        case activeSubject = "active_subject"
        case activeSubjectProof = "active_subject_proof"
        case tokenType = "token_type"
        case scope
        case refreshToken = "refresh_token"
        case accessToken = "access_token"
        case refreshFingerprint = "refresh_fingerprint"
        case accessFingerprint = "access_fingerprint"
        case accessExpiresAt = "access_expires_at"
        case serverExpiresAt = "server_expires_at"
        case refreshExpiresAt = "refresh_expires_at"
        case issuedAt = "issued_at"
        case absoluteDeadline = "absolute_deadline"
        case lastActiveAt = "last_active_at"
        case biometricEnabled = "biometric_enabled"
        case biometricDomainState = "biometric_domain_state"
        case tokenVersion = "token_version"
        case refreshPendingSince = "refresh_pending_since"
        case createdAt = "created_at"
        /// Migration 0007: when the cached access token arrived (its lifetime's start).
        case accessIssuedAt = "access_issued_at"
        /// Migration 0008: the sealed DPoP proof key and its thumbprint (`jkt`).
        case proofKey = "proof_key"
        case proofJKT = "proof_jkt"
        /// Migration 0009: when the server first refused this session's refresh without a
        /// verdict on the grant.
        case refreshRefusedSince = "refresh_refused_since"
        /// Migration 0009: the sealed ID token, for the end-session URL.
        case idToken = "id_token"

        /// Where the column sits in a row selected with `SessionRecord.selectList`.
        var position: Int32 { Self.positions[self] ?? -1 }

        private static let positions: [Column: Int32] =
            Dictionary(uniqueKeysWithValues: allCases.enumerated().map { ($0.element, Int32($0.offset)) })
    }
}

/// The `roles_json` column: a JSON array of strings.
///
/// The library writes it with JSONEncoder, so it is almost always plain `["a","b"]` with no
/// escapes; that form is split directly (verify reads it for every stored session, and a full
/// JSON parse was a large share of that pass). Anything else (escapes, non-ASCII, odd spacing)
/// goes through JSONSerialization, so the answer is the same either way.
enum RolesJSON {
    /// The column's text for `roles`, as JSONEncoder writes it.
    static func encode(_ roles: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(roles)) ?? Data("[]".utf8), as: UTF8.self)
    }

    static func decode(_ text: String) -> [String]? {
        if let fast = decodePlain(text) { return fast }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String]
    }

    /// `[]` or `["x","y",…]` whose strings hold printable ASCII other than `"` and `\`; nil
    /// for anything else.
    private static func decodePlain(_ text: String) -> [String]? {
        var bytes = Array(text.utf8)[...]
        guard bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") else { return nil }
        bytes = bytes.dropFirst().dropLast()
        if bytes.isEmpty { return [] }
        var roles: [String] = []
        while true {
            guard bytes.first == UInt8(ascii: "\"") else { return nil }
            bytes = bytes.dropFirst()
            guard let close = bytes.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
            let value = bytes[bytes.startIndex..<close]
            guard value.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") }) else { return nil }
            roles.append(String(decoding: value, as: UTF8.self))
            bytes = bytes[bytes.index(after: close)...]
            if bytes.isEmpty { return roles }
            guard bytes.first == UInt8(ascii: ",") else { return nil }
            bytes = bytes.dropFirst()
        }
    }
}
