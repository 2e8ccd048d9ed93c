import Foundation
import SessionVault

extension SessionLayer {
    /// The "Sign in" button: open `request.url` in ASWebAuthenticationSession (Custom Tabs on
    /// Android) and keep `request` until the browser comes back.
    func startSignIn() throws -> AuthorizationRequest {
        try signInFlow.authorizationRequest()   // PKCE verifier, state, nonce: fresh each time
    }

    /// The URL the browser came back with: state checked, code exchanged, session stored.
    func finishSignIn(_ request: AuthorizationRequest, redirect: URL) async -> Screen {
        do {
            return .home(try await manager.signIn(completing: request, redirect: redirect))
        } catch .authorizationDenied, .stateMismatch, .codeRejected, .authorizationAlreadyUsed {
            return .login(expiredMessage: false)          // cancelled, forged or stale: start again
        } catch .network, .serverError, .rateLimited {
            return .retry(after: 5)
        } catch {
            return .login(expiredMessage: false)          // idTokenRejected, clientRejected, vault, …
        }
    }
}
