import Foundation
@testable import SessionVault

/// The token pairs the suite stores. Pair `n` is `R-n` / `A-n` (the crash host derives the same
/// values from `n`), each followed by a recognisable marker so the disk can be scanned for them.
enum TokenValues {
    static let refreshMarker = "REFRESHMARKERQ7"
    static let accessMarker = "ACCESSMARKERQ7"
    static let subject = "user-42"

    static func refresh(_ sequence: Int) -> String { "R-\(sequence).\(refreshMarker)" }
    static func access(_ sequence: Int) -> String { "A-\(sequence).\(accessMarker)" }

    /// A sign-in or refresh response for pair `sequence`.
    static func response(_ sequence: Int, withIdentity: Bool = true) throws -> TokenResponse {
        TokenResponse(
            accessToken: try Token(access(sequence)), expiresIn: 3600, refreshToken: try Token(refresh(sequence)),
            identity: withIdentity ? SessionIdentity(subject: subject, email: "peer@example.org", roles: ["mentor"]) : nil)
    }

    /// The bare pair the crash host writes: `R-n` / `A-n`.
    static func hostResponse(_ sequence: Int) throws -> TokenResponse {
        TokenResponse(
            accessToken: try Token("A-\(sequence)"), expiresIn: 3600, refreshToken: try Token("R-\(sequence)"),
            identity: SessionIdentity(subject: subject))
    }

    /// The text of a token (tests only; never put into a failure message).
    static func text(_ token: Token?) -> String? {
        token.map { $0.withRevealedBytes { String(decoding: $0, as: UTF8.self) } }
    }
}
