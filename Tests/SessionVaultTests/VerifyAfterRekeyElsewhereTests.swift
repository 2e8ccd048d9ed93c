import Foundation
import Testing
import SessionVaultTestSupport
@testable import SessionVault
#if canImport(Glibc)
import Glibc
#endif

/// Found by the session histories (shrunk to two steps): the app rekeyed the vault and its new key
/// took the old one's place in the key store; an extension that still had the vault open then ran
/// `verify()` and got "page 1 failed authentication (HMAC): damaged" for a healthy vault: the scan
/// read the new file with the old key. An app that trusts its verify (and recovers on damage) would
/// have wiped a healthy session. Rule: verify looks at the files it scans first, and reopens
/// through the key provider when another process replaced them.
@Suite("verify after a rekey in another process", .serialized)
struct VerifyAfterRekeyElsewhereTests {
    @Test func aConnectionOpenBeforeTheRekeyVerifiesTheNewFileWithTheNewKey() async throws {
        let directory = TemporaryDirectory("verify-after-rekey")
        let path = directory.file("vault.db"), keyPath = directory.file("vault.key")
        let extensionVault = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))
        try await extensionVault.store(
            try TokenResponse(json: Data(#"{"access_token":"A-1","token_type":"bearer","expires_in":3600,"refresh_token":"R-1","user":{"id":"u"}}"#.utf8)))
        let app = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))
        let next = KeyFileProvider(path: directory.file("vault-next.key"))
        try await app.rekey(to: next)
        await app.close()
        // The key store now gives the new key under the old name.
        #expect(rename(next.path, keyPath) == 0)
        try? FileManager.default.removeItem(atPath: KeyFileProvider(path: keyPath).generationRecordPath)
        if FileManager.default.fileExists(atPath: next.generationRecordPath) {
            #expect(rename(next.generationRecordPath, KeyFileProvider(path: keyPath).generationRecordPath) == 0)
        }
        let report = try await extensionVault.verify()
        #expect(report.intact, "a healthy vault rekeyed elsewhere: \(report.findings)")
        let refresh = try #require(try await extensionVault.refreshToken()).withRevealedBytes { String(decoding: $0, as: UTF8.self) }
        #expect(refresh == "R-1", "the session is still there, read with the new key")
        await extensionVault.close()
    }
}
