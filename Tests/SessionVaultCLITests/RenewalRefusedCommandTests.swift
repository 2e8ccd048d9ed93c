import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// `sessionvault resume` shows a refused renewal: the server refused the refresh without a
/// verdict on the grant, the vault recorded the first refusal's time for every process, and the
/// session lives on until the server answers or the refusal limit passes.
@Suite("sessionvault resume shows a refused renewal")
struct RenewalRefusedCommandTests {
    @Test func theFirstRefusalIsShownInTextAndJSON() async throws {
        let cli = try await CLIVault.signedIn()
        let refusedAt = Date(timeIntervalSince1970: TimeInterval(Fixtures.signInSeconds + 3 * 3600))
        let vault = try Vault.open(at: cli.path, keyProvider: KeyFileProvider(path: cli.keyPath), clock: { refusedAt })
        let session = try #require(try await vault.currentSession())
        _ = try await vault.recordRefreshRefused(sessionID: session.id, expectedVersion: session.tokenVersion, keepPending: false)
        await vault.close()
        let now = "\(Fixtures.signInSeconds + 4 * 3600)"
        let json = try await cli.run(["resume"], ["--now", now, "--json", "--dry-run"])
        #expect(json.status == 0)
        let stored = try #require(json.json?["session"] as? [String: Any])
        #expect(stored["refreshRefusedSince"] as? String != nil, "the JSON names the first refusal's time")
        #expect(json.json?["path"] as? String == "expired")
        let text = try await cli.run(["resume"], ["--now", now, "--dry-run"])
        #expect(text.stdout.contains("renewal refused"))
        #expect(text.stdout.contains("renewalRefused"), "the app's answer on this path")
        #expect(!json.leaksToken && !text.leaksToken)
    }
}
