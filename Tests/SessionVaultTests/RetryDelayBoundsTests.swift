import Foundation
import Testing
@testable import SessionVault

/// The delay a rate-limited refresh answers comes from outside (the body's `retry_after`, the
/// `Retry-After` header): found by the auth-error fuzz target (Fuzz/), a crafted value came back
/// as it was, infinite, NaN, negative or centuries long, and reached `ResumeOutcome.offline`.
/// Whatever the server sends, the delay is finite, not negative and at most one day.
@Suite("Rate-limit delays from the server are bounded")
struct RetryDelayBoundsTests {
    static let oneDay: TimeInterval = 86_400

    static func delay(body: String, header: String?) -> TimeInterval? {
        guard
            case .rateLimited(let retryAfter) = AuthErrorBody.classifyRefreshFailure(
                status: 429, body: Data(body.utf8),
                retryAfterHeader: header)
        else { return nil }
        return retryAfter
    }

    @Test(arguments: [
        (#"{"retry_after":-5}"#, nil as String?),
        (#"{"retry_after":1e300}"#, nil),
        (#"{"retry_after":31536000000}"#, nil),
        ("{}", "-1"),
        ("{}", "inf"),
        ("{}", "nan"),
        ("{}", "1e300"),
        ("{}", "-infinity"),
        (#"{"retry_after":true}"#, "nan")
    ])
    func isFiniteNonNegativeAndAtMostADay(body: String, header: String?) throws {
        let delay = try #require(Self.delay(body: body, header: header))
        #expect(delay.isFinite && delay >= 0 && delay <= Self.oneDay, "delay \(delay)")
    }

    @Test func anOrdinaryDelayIsKeptAndAMissingOneIsAMinute() {
        #expect(Self.delay(body: #"{"retry_after":30}"#, header: nil) == 30)
        #expect(Self.delay(body: "{}", header: " 12 ") == 12)
        #expect(Self.delay(body: #"{"retry_after":172800}"#, header: nil) == Self.oneDay)
        #expect(Self.delay(body: "not json", header: "soon") == 60)
    }
}
