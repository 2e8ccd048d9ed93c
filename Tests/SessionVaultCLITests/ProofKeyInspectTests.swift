import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// `inspect` shows a DPoP session's key thumbprint (the server's `cnf.jkt`), never the key itself.
@Suite("sessionvault inspect: the proof key's thumbprint, never the key")
struct ProofKeyInspectTests {
    @Test func inspectShowsTheThumbprintAndNotTheKey() async throws {
        let vault = CLIVault()
        let key = try await SoftwareProofKeyProvider().makeKey()
        let thumbprint = try #require(DPoPProver(key: key, nonces: DPoPNonceStore())?.thumbprint)
        let stored = try key.storedForm()
        let scalarHex = stored.withUnsafeBytes { Hex.encode(Array($0)) }
        let scalarBase64 = stored.withUnsafeBytes { Data($0).base64EncodedString() }
        let opened = try Vault.open(
            at: vault.path, keyProvider: KeyFileProvider(path: vault.keyPath),
            clock: { Date(timeIntervalSince1970: TimeInterval(Fixtures.signInSeconds)) })
        var response = try TokenResponse(json: Fixtures.goTrueJSON())
        response.tokenType = "DPoP"
        _ = try await opened.store(
            response, biometricEnabled: false, serverClockOffset: nil, onlyIf: nil,
            proofKey: NewProofKey(stored: stored, thumbprint: thumbprint))
        await opened.close()

        let json = try await vault.run(["inspect"], ["--now", Fixtures.signIn, "--json"])
        #expect(json.status == 0)
        let session = try #require((json.json?["sessions"] as? [[String: Any]])?.first)
        #expect(session["proofKeyThumbprint"] as? String == thumbprint)
        #expect(session["tokenType"] as? String == "DPoP")
        let text = try await vault.run(["inspect"], ["--now", Fixtures.signIn])
        #expect(text.status == 0)
        #expect(text.stdout.contains("DPoP jkt \(thumbprint)"))
        for output in [json.stdout + json.stderr, text.stdout + text.stderr] {
            #expect(!output.contains(scalarHex) && !output.contains(scalarBase64), "the key never appears")
        }
        #expect(!json.leaksToken && !text.leaksToken)
    }
}
