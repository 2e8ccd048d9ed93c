/// The sealed columns (tokens and the proof key); part of each seal's associated data.
enum TokenColumn: String {
    case refreshToken = "refresh_token"
    case accessToken = "access_token"
    /// The DPoP proof key (sealed with token version 0: it outlives every rotation).
    case proofKey = "proof_key"

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
