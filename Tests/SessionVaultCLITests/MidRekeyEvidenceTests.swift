import Foundation
import Testing
import SessionVault
import SessionVaultTestSupport

/// The forensic commands on a vault a rekey left half-switched: the header says "rekey pending"
/// durably, `<db>-rekey` is complete, the rename never happened. The app's open rolls the rekey
/// forward and finds the session; the private copy the read-only commands open must hold `-rekey`
/// too, or they call a healthy vault "corrupted: wipe everything".
@Suite("Forensic commands on a vault killed mid-rekey")
struct MidRekeyEvidenceTests {
    /// A signed-in vault whose rekey process was SIGKILLed at the switch point, and the new key.
    static func killedAtTheSwitch() async throws -> (CLIVault, newKey: String) {
        let vault = try await CLIVault.signedIn()
        let newKey = vault.directory.file("new.key")
        _ = try await KilledWriter.run(["rekey-killed-at", vault.path, vault.keyPath, newKey, "rekey-switched"])
        return (vault, newKey)
    }

    /// What the app's own open (create, as `ResumeManager` opens) decides on a copy of the files.
    static func appDecision(on vault: CLIVault, newKey: String, now: Date) async throws -> ResumePath {
        let elsewhere = TemporaryDirectory()
        for name in try FileManager.default.contentsOfDirectory(atPath: vault.directory.path) {
            try FileManager.default.copyItem(atPath: vault.directory.file(name), toPath: elsewhere.file(name))
        }
        do {
            let opened = try Vault.open(at: elsewhere.file("vault.db"), keyProvider: KeyFileProvider(path: elsewhere.file("new.key")), clock: { now })
            let path = ResumeDecision.decide(try await opened.snapshot(), now: now, policy: opened.policy)
            await opened.close()
            return path
        } catch {
            if case .corrupted(let reason) = error { return ResumeDecision.decide(.corrupted(reason), now: now, policy: ResumePolicy()) }
            throw error
        }
    }

    @Test func resumeDryRunVerifyAndInspectAnswerAsTheAppsOpenAndChangeNothing() async throws {
        let (vault, newKey) = try await Self.killedAtTheSwitch()
        #expect(vault.exists(vault.path + "-rekey"), "the kill landed before the re-encrypted copy was renamed")
        let before = DirectoryDigest(vault.directory.path)
        let now = Fixtures.signIn
        let arguments = ["--vault", vault.path, "--key-file", newKey, "--json"]

        let dry = try await CLI.run(["resume", "--dry-run", "--now", now] + arguments)
        let app = try await Self.appDecision(on: vault, newKey: newKey, now: try #require(ISO8601DateFormatter().date(from: now)))
        #expect(app.name == "valid", "the app's open rolls the rekey forward: \(app.name) \(app.reason)")
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.json?["path"] as? String == app.name, "resume --dry-run: \(dry.stdout)")
        #expect((dry.json?["reason"] as? String ?? "") == app.reason, "resume --dry-run: \(dry.stdout)")

        let verify = try await CLI.run(["verify"] + arguments)
        #expect(verify.status == 0, "verify: \(verify.stdout) \(verify.stderr)")
        let inspect = try await CLI.run(["inspect"] + arguments)
        #expect(inspect.status == 0, "inspect: \(inspect.stdout) \(inspect.stderr)")

        #expect(DirectoryDigest(vault.directory.path) == before, "the read-only commands changed the original files")
        #expect(vault.exists(vault.path + "-rekey"), "the roll forward ran on the original, not on the copy")
    }

    @Test func theCustodyRecordListsTheReEncryptedCopy() async throws {
        let (vault, newKey) = try await Self.killedAtTheSwitch()
        let result = try await CLI.run([
            "resume", "--dry-run", "--evidence", "--json", "--now", Fixtures.signIn,
            "--vault", vault.path, "--key-file", newKey
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let files = (result.json?["evidence"] as? [String: Any])?["files"] as? [[String: Any]] ?? []
        #expect(files.contains { $0["path"] as? String == vault.path + "-rekey" }, "\(result.stdout)")
    }
}
