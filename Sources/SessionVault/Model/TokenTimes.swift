import Foundation

/// Expiry times of a token response, computed against the local time of receipt.
struct TokenTimes {
    /// The receipt time: what the access token's lifetime is measured from.
    let accessIssuedAt: Int64
    let accessExpiresAt: Int64?
    let serverExpiresAt: Int64?
    let refreshExpiresAt: Int64
    let absoluteDeadline: Int64?

    // Saturating arithmetic throughout: the inputs are a server's numbers (range-checked by
    // `TokenResponse.checkRanges`, but a caller may build a response by hand), the app's clock
    // and its policy; none of them may trap the process after a refresh token was spent.
    init(_ response: TokenResponse, receivedAt now: Date, policy: ResumePolicy, serverClockOffset: TimeInterval) {
        let receipt = now.unixMilliseconds
        if let expiresIn = response.expiresIn {
            accessExpiresAt = UnixMilliseconds.sum(receipt, UnixMilliseconds.from(seconds: expiresIn))
        } else if let expiresAt = response.expiresAt {
            // Only a server time is known: move it onto the local clock.
            accessExpiresAt = UnixMilliseconds.sum(UnixMilliseconds.from(seconds: expiresAt), -UnixMilliseconds.from(seconds: serverClockOffset))
        } else {
            // No lifetime stated anywhere (no expires_in, expires_at or JWT exp): the policy's
            // stated default, never "no expiry", which read as "no access token" and asked for a
            // refresh on every call.
            accessExpiresAt = UnixMilliseconds.sum(receipt, UnixMilliseconds.from(seconds: policy.assumedAccessTokenLifetime))
        }
        accessIssuedAt = receipt
        serverExpiresAt = response.expiresAt.map { UnixMilliseconds.from(seconds: $0) }
        // Never before the receipt: the next open refuses a refresh expiry before the issue time
        // as damage (`SessionRecord.checkInvariants`), so what is written here must satisfy it.
        let refreshLifetime = response.refreshExpiresIn.map { UnixMilliseconds.from(seconds: $0) }
            ?? UnixMilliseconds.from(seconds: policy.refreshTokenLifetime)
        refreshExpiresAt = UnixMilliseconds.sum(receipt, max(refreshLifetime, 0))
        absoluteDeadline = policy.absoluteLifetime.map { UnixMilliseconds.sum(receipt, UnixMilliseconds.from(seconds: $0)) }
    }
}
