import Foundation
import Testing
@testable import SessionVault

@Suite("Refresh errors that blame the client or the request, not the token")
struct RefreshClassificationTests {
    @Test(arguments: [
        (401, #"{"error":"invalid_client"}"#, RefreshError.clientRejected(error: "invalid_client")),
        (400, #"{"error":"invalid_client","error_description":"Client authentication failed"}"#, .clientRejected(error: "invalid_client")),
        (400, #"{"error":"unauthorized_client"}"#, .clientRejected(error: "unauthorized_client")),
        (400, #"{"error":"invalid_scope"}"#, .invalidScope),
        (400, #"{"error":"invalid_grant"}"#, .invalidGrant),
        (401, #"{"error":"something_else"}"#, .refusedUnexplained(status: 401, error: "something_else"))
    ])
    func classifies(status: Int, body: String, expected: RefreshError) {
        #expect(AuthErrorBody.classifyRefreshFailure(status: status, body: Data(body.utf8), retryAfterHeader: nil) == expected)
    }

    @Test func aMisconfiguredClientDoesNotEndTheSessionAndARefusedScopeDoes() {
        #expect(!RefreshError.clientRejected(error: "invalid_client").endsSession)
        #expect(RefreshError.invalidScope.endsSession)
        #expect(MissingReason(code: MissingReason.scopeRejected.code) == .scopeRejected)
    }
}
