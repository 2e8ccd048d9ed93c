import Foundation
import SessionVault

extension FuzzTarget {
    /// The token endpoint's body (GoTrue or RFC 6749 §5.1 JSON) through `TokenResponse(json:)`.
    ///
    /// Any typed refusal is an answer. What must hold for a body it accepts: its numbers pass
    /// the same range check `Vault.store` applies (a parsed response the vault then refuses, or
    /// stores and later reads as damage, would be a parser bug), and its description can be made.
    public static func tokenResponse(_ input: [UInt8]) -> String? {
        let response: TokenResponse
        do {
            response = try TokenResponse(json: Data(input))
        } catch {
            return nil
        }
        do {
            try response.checkRanges()
        } catch {
            return "TokenResponse(json:) accepted a number outside its ranges (\(error))"
        }
        if response.accessToken.withRevealedBytes({ $0.isEmpty }) { return "TokenResponse(json:) accepted an empty access token" }
        _ = response.description
        return nil
    }
}
