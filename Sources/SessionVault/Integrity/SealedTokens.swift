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
