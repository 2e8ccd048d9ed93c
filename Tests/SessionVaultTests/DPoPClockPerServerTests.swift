import Foundation
import Testing
@testable import SessionVault

/// One DPoP server clock served every server: a proof the app's own API refused for its date (its
/// `Date` two hours ahead of the authorization server's) re-dated the next token request by
/// +7,200 s, and the authorization server refused it. The offset is kept per server role, as the
/// nonces are.
@Suite("DPoP: one measured clock per server role")
struct DPoPClockPerServerTests {
    static func iat(of proof: String) throws -> Int64 {
        let parts = proof.split(separator: ".")
        var base64 = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        let data = try #require(Data(base64Encoded: base64))
        let claims = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require((claims["iat"] as? NSNumber)?.int64Value)
    }

    @Test func anAPIsClockDoesNotRedateTokenRequests() async throws {
        let device = Date(timeIntervalSince1970: 1_900_000_000)
        let prover = try #require(
            DPoPProver(key: try await SoftwareProofKeyProvider().makeKey(), nonces: DPoPNonceStore(), clock: { device }))
        let tokenEndpoint = try #require(URL(string: "https://as.example/token"))
        let api = try #require(URL(string: "https://api.example/items"))
        // The authorization server agrees with the device; the API's clock is two hours ahead.
        _ = prover.noteServerDate(device)
        #expect(prover.serverClock.measure(serverDate: device.addingTimeInterval(7200), deviceNow: device, server: .resource))
        let token = try Token("access")
        #expect(try Self.iat(of: try prover.proof(method: "GET", url: api, accessToken: token)) == Int64(device.timeIntervalSince1970) + 7200)
        #expect(try Self.iat(of: try prover.proof(method: "POST", url: tokenEndpoint)) == Int64(device.timeIntervalSince1970))
    }

    @Test func anAPINotMeasuredYetIsDatedAsTheAuthorizationServer() async throws {
        let device = Date(timeIntervalSince1970: 1_900_000_000)
        let prover = try #require(
            DPoPProver(key: try await SoftwareProofKeyProvider().makeKey(), nonces: DPoPNonceStore(), clock: { device }))
        _ = prover.noteServerDate(device.addingTimeInterval(-300))
        let api = try #require(URL(string: "https://api.example/items"))
        #expect(try Self.iat(of: try prover.proof(method: "GET", url: api, accessToken: try Token("access"))) == Int64(device.timeIntervalSince1970) - 300)
    }
}
