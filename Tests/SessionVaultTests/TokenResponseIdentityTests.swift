import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

@Suite("An RFC 6749 response stored with the identity the app supplies")
struct TokenResponseIdentityTests {
    @Test func opaqueResponseTakesTheAppsIdentity() async throws {
        let response = try TokenResponse(json: Fixtures.oauthJSON(subjectInIDToken: false))
        #expect(response.identity == nil)
        let fixture = TestVault()
        let vault = try fixture.open()
        let session = try await vault.store(response, identity: SessionIdentity(subject: "app-user", email: "a@example.org"))
        #expect(session.identity.subject == "app-user")
        #expect(session.identity.email == "a@example.org")
        #expect(session.hasRefreshToken)
    }

    @Test func claimsFillWhatTheAppLeftOut() throws {
        let response = try TokenResponse(json: Fixtures.oauthJSON(subjectInIDToken: true))
        let identified = try response.identified(as: SessionIdentity(subject: "oauth-user"))
        #expect(identified.identity?.issuer == "https://idp.example")
        #expect(identified.identity?.email == "o@example.org")
    }

    @Test func aResponseNamingAnotherSubjectIsRefused() async throws {
        let response = try TokenResponse(json: Fixtures.oauthJSON(subjectInIDToken: true))
        #expect(throws: TokenResponseError.invalidField("sub")) { try response.identified(as: SessionIdentity(subject: "someone-else")) }
        let vault = try TestVault().open()
        await #expect(throws: VaultError.invalidTokenResponse(.invalidField("sub"))) {
            try await vault.store(response, identity: SessionIdentity(subject: "someone-else"))
        }
        #expect(try await vault.currentSession() == nil)
    }
}

/// idpyoidc's JWT access tokens carry its user-database id while the ID token and userinfo carry
/// the public `sub`: the stored identity comes from the ID token (OIDC Core's identifier, with
/// `iss`), then the provider's user object, and from the access token only when nothing else
/// names the user. A refresh whose only identity is an access token naming someone else is not,
/// by itself, an answer for another subject.
@Suite("The session's subject comes from the ID token, not the access token")
struct SubjectFromIDTokenTests {
    static func jwt(_ claims: [String: Any]) throws -> String {
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let encoded = payload.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return "eyJhbGciOiJFUzI1NiJ9.\(encoded).c2ln"
    }

    static func body(access: String, idToken: String?) -> String {
        let id = idToken.map { #","id_token":"\#($0)""# } ?? ""
        return #"{"access_token":"\#(access)","token_type":"Bearer","expires_in":3600,"refresh_token":"r1"\#(id)}"#
    }

    @Test func theIDTokensSubjectAndIssuerWin() throws {
        let access = try Self.jwt(["sub": "alice-sub-0001", "iss": "https://as.example/internal", "email": "db@example.com"])
        let idToken = try Self.jwt(["sub": "public-alice", "iss": "https://op.example", "email": "alice@example.com"])
        let response = try TokenResponse(json: Data(Self.body(access: access, idToken: idToken).utf8))
        #expect(response.identity?.subject == "public-alice")
        #expect(response.identity?.issuer == "https://op.example")
        #expect(response.identity?.email == "alice@example.com")
    }

    @Test func anAccessTokenAloneStillNamesTheUserForASignIn() throws {
        let access = try Self.jwt(["sub": "only-here"])
        #expect(try TokenResponse(json: Data(Self.body(access: access, idToken: nil).utf8)).identity?.subject == "only-here")
    }

    @Test func aRefreshWhoseAccessTokenNamesAnInternalIDKeepsTheSession() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let idToken = try Self.jwt(["sub": "public-alice", "iss": "https://op.example"])
        let stored = try await vault.store(try TokenResponse(json: Data(Self.body(access: try Self.jwt(["sub": "alice-sub-0001"]), idToken: idToken).utf8)))
        #expect(stored.identity.subject == "public-alice")
        // The refresh answer: a new JWT access token with the internal id, no ID token, no user.
        let refreshed = try TokenResponse(json: Data(Self.body(access: try Self.jwt(["sub": "alice-sub-0001", "n": 2]), idToken: nil).utf8))
        let rotated = try await vault.rotate(refreshed)
        #expect(rotated.identity.subject == "public-alice" && rotated.tokenVersion == stored.tokenVersion + 1)
        // An ID token naming someone else is still another subject.
        let other = try TokenResponse(json: Data(Self.body(access: "opaque", idToken: try Self.jwt(["sub": "mallory"])).utf8))
        await #expect(throws: VaultError.subjectMismatch) { try await vault.rotate(other) }
        await vault.close()
    }
}

/// The ID token kept for the end-session URL's `id_token_hint`: sealed from the sign-in on,
/// replaced by a refresh that sends one, re-sealed by a rekey, gone at sign-out.
@Suite("The ID token kept for the logout hint")
struct KeptIDTokenTests {
    @Test func keptThroughRefreshAndRekeyGoneAtSignOut() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let first = try SubjectFromIDTokenTests.jwt(["sub": "alice", "n": 1])
        try await vault.store(try TokenResponse(json: Data(SubjectFromIDTokenTests.body(access: "a1", idToken: first).utf8)))
        #expect(try await vault.currentIDToken()?.withRevealedBytes { String(decoding: $0, as: UTF8.self) } == first)
        // A refresh without an ID token keeps it; one with a new ID token replaces it.
        try await vault.rotate(try TokenResponse(json: Data(SubjectFromIDTokenTests.body(access: "a2", idToken: nil).utf8)))
        #expect(try await vault.currentIDToken()?.withRevealedBytes { String(decoding: $0, as: UTF8.self) } == first)
        let second = try SubjectFromIDTokenTests.jwt(["sub": "alice", "n": 2])
        try await vault.rotate(try TokenResponse(json: Data(SubjectFromIDTokenTests.body(access: "a3", idToken: second).utf8)))
        try await vault.rekey(to: try KeyFileProvider.create(at: fixture.directory.file("new.key")))
        #expect(try await vault.currentIDToken()?.withRevealedBytes { String(decoding: $0, as: UTF8.self) } == second)
        try await vault.signOut(reason: .signedOut)
        #expect(try await vault.currentIDToken() == nil)
        await vault.close()
    }
}

/// A session stored by a release that took its subject from the access token (Okta's access token
/// names the login, its ID token the user id): the first refresh that brings an ID token is still
/// the same user's, as long as the access token names the stored subject.
@Suite("An upgrade's first ID token is not another subject")
struct SubjectAfterUpgradeTests {
    @Test func theAccessTokensSubjectStillCounts() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let first = try TokenResponse(
            json: Data(SubjectFromIDTokenTests.body(access: try SubjectFromIDTokenTests.jwt(["sub": "alice@login"]), idToken: nil).utf8))
        let stored = try await vault.store(first)
        #expect(stored.identity.subject == "alice@login")
        let refreshed = try TokenResponse(
            json: Data(
                SubjectFromIDTokenTests.body(
                    access: try SubjectFromIDTokenTests.jwt(["sub": "alice@login", "n": 2]), idToken: try SubjectFromIDTokenTests.jwt(["sub": "00u-alice"])
                ).utf8))
        let rotated = try await vault.rotate(refreshed)
        #expect(rotated.tokenVersion == stored.tokenVersion + 1)
        await vault.close()
    }
}
