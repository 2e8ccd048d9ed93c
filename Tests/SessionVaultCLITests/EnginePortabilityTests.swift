import Foundation
import Testing
import SessionVaultTestSupport

/// A vault written by one SQLCipher engine opens, verifies, takes writes and rekeys on the other,
/// both ways, in one run: this leg's `sessionvault` against one built with the other engine
/// (`SESSIONVAULT_OTHER_ENGINE_CLI`). `make test-sqlcipher4` passes the 3.4.1 build's CLI, so
/// CI runs this on every change; EngineTests fails the 4.x leg if the variable is missing, so it
/// cannot pass there without running. A plain `swift test` has one engine only and leaves it out.
@Suite("Vault files move between SQLCipher 3.x and 4.x")
struct EnginePortabilityTests {
    static let otherEngine = ProcessInfo.processInfo.environment["SESSIONVAULT_OTHER_ENGINE_CLI"].flatMap { $0.isEmpty ? nil : $0 }

    @Test(
        "written by one engine, read, verified, written and rekeyed by the other, both ways",
        .enabled(if: otherEngine != nil, "needs SESSIONVAULT_OTHER_ENGINE_CLI (make test-sqlcipher4 sets it)"))
    func vaultsMoveBothWays() async throws {
        let this = try #require(CLI.executable)
        let other = try #require(Self.otherEngine)
        let thisEngine = try await engineVersion(this)
        let otherEngine = try await engineVersion(other)
        #expect(thisEngine.prefix(2) != otherEngine.prefix(2), "two different engines: \(thisEngine) and \(otherEngine)")
        try await roundTrip(writer: other, reader: this)
        try await roundTrip(writer: this, reader: other)
    }

    /// The `SQLCipher x.y.z` an executable's engine reports, from `inspect` on a vault of its own.
    private func engineVersion(_ executable: String) async throws -> String {
        let vault = CLIVault()
        try await expectSuccess(executable, ["import"] + vault.vaultArguments + ["--now", Fixtures.signIn], stdin: Fixtures.goTrueJSON(), "import")
        let inspect = try await CLI.spawn(executable, ["inspect"] + vault.vaultArguments + ["--json"])
        let cipher = try #require(inspect.json?["cipher"] as? [String: Any])
        return try #require(cipher["version"] as? String)
    }

    private func roundTrip(writer: String, reader: String) async throws {
        let label = "written by \(URL(fileURLWithPath: writer).deletingLastPathComponent().path)"
        let vault = CLIVault()
        try await expectSuccess(
            writer, ["import"] + vault.vaultArguments + ["--now", Fixtures.signIn, "--biometric"], stdin: Fixtures.goTrueJSON(), "\(label): import")

        // Opens: the session is there and resumes.
        let resumed = try await CLI.spawn(reader, ["resume"] + vault.vaultArguments + ["--now", Fixtures.signIn, "--json"])
        #expect(resumed.json?["path"] as? String == "valid", "\(label): resume \(resumed.stderr)")
        // Verifies: every page authenticates under the other engine.
        let verified = try await CLI.spawn(reader, ["verify"] + vault.vaultArguments + ["--json"])
        #expect(verified.status == 0 && verified.json?["intact"] as? Bool == true, "\(label): verify \(verified.stderr)")
        // Takes writes: a new sign-in replaces the session.
        try await expectSuccess(
            reader, ["import"] + vault.vaultArguments + ["--now", Fixtures.signIn], stdin: Fixtures.goTrueJSON(refresh: "\(Fixtures.refreshMarker)-2"),
            "\(label): write")
        let afterWrite = try await CLI.spawn(reader, ["inspect"] + vault.vaultArguments + ["--json"])
        let sessions = try #require(afterWrite.json?["sessions"] as? [[String: Any]])
        #expect(!sessions.isEmpty)
        // Rekeys, and the writer's engine opens the rekeyed file with the new key.
        let newKey = vault.directory.file("new.key")
        try await expectSuccess(reader, ["keygen", "--key-file", newKey], "\(label): keygen")
        try await expectSuccess(reader, ["rekey"] + vault.vaultArguments + ["--new-key-file", newKey], "\(label): rekey")
        let back = ["--vault", vault.path, "--key-file", newKey]
        let reopened = try await CLI.spawn(writer, ["resume"] + back + ["--now", Fixtures.signIn, "--json"])
        #expect(reopened.json?["path"] as? String == "valid", "\(label): resume after rekey \(reopened.stderr)")
        let reverified = try await CLI.spawn(writer, ["verify"] + back + ["--json"])
        #expect(reverified.json?["intact"] as? Bool == true, "\(label): verify after rekey \(reverified.stderr)")
        #expect(!resumed.leaksToken && !verified.leaksToken && !reopened.leaksToken)
    }

    private func expectSuccess(_ executable: String, _ arguments: [String], stdin: Data? = nil, _ step: String) async throws {
        let result = try await CLI.spawn(executable, arguments, stdin: stdin)
        guard result.status == 0 else { throw CLIVault.SetupFailed(step: step, result: result) }
        #expect(result.stderr.isEmpty || !result.stderr.contains("CORE"), "\(step): engine log on stderr")
    }
}
