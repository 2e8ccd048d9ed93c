import Foundation

/// A successful refresh: the new tokens and, when the server sent one, its `Date` header
/// (used to measure the server clock offset).
public struct RefreshedTokens: Sendable {
    /// The token endpoint's answer.
    public var response: TokenResponse
    /// The response's `Date` header, when present: the vault records the server's clock offset.
    public var serverDate: Date?

    /// What a custom `SessionRefresher` returns.
    public init(response: TokenResponse, serverDate: Date? = nil) {
        self.response = response
        self.serverDate = serverDate
    }
}
