import Foundation

/// A successful refresh: the new tokens and, when the server sent one, its `Date` header
/// (used to measure the server clock offset).
public struct RefreshedTokens: Sendable {
    public var response: TokenResponse
    public var serverDate: Date?

    public init(response: TokenResponse, serverDate: Date? = nil) {
        self.response = response
        self.serverDate = serverDate
    }
}
