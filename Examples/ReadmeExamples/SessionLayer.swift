import Foundation
import SessionVault

/// The app's session layer. Create one at launch and keep it: one vault per process.
struct SessionLayer: Sendable {
    let manager: ResumeManager
    let signInFlow: AuthorizationCodeFlow

    init(directory: URL, authServer: URL, clientID: String, redirectURI: URL) {
        manager = ResumeManager(
            path: directory.appendingPathComponent("session.db").path,
            keyProvider: KeyFileProvider(path: directory.appendingPathComponent("session.key").path),
            refresher: OAuth2Refresher(tokenEndpoint: authServer.appendingPathComponent("o/token/"), clientID: clientID,
                                       revocationEndpoint: authServer.appendingPathComponent("o/revoke_token/")))
        signInFlow = AuthorizationCodeFlow(
            authorizationEndpoint: authServer.appendingPathComponent("o/authorize/"),
            tokenEndpoint: authServer.appendingPathComponent("o/token/"),
            clientID: clientID, redirectURI: redirectURI, scope: "openid read",
            issuer: authServer.appendingPathComponent("o").absoluteString)
    }
}
