import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// A fingerprint is keyed with the vault's fingerprint subkey, so the same token has a different
/// fingerprint in every vault and a server (which holds the token, not the key) cannot compute it.
/// What the docs may promise: matching within one vault's audit log and the app's own logs, never
/// matching server logs by fingerprint.
@Suite("Fingerprints are keyed: only the vault's key computes them")
struct FingerprintKeyingTests {
    @Test func theSameTokenHasAnotherFingerprintInAnotherVault() async throws {
        var fingerprints: [Fingerprint] = []
        for _ in 0..<2 {
            let fixture = TestVault()
            let vault = try fixture.open()
            let session = try await vault.store(Fixtures.goTrue(refresh: "the-same-refresh-token"))
            fingerprints.append(try #require(session.refreshTokenFingerprint))
            await vault.close()
        }
        #expect(fingerprints[0] != fingerprints[1], "a fingerprint anyone could compute from the token alone")
        #expect(fingerprints.allSatisfy { $0.hex.count == 16 })
    }
}
