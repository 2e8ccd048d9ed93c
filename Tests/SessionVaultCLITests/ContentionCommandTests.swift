import Foundation
import Testing
import SessionVaultTestSupport

/// Four people (or four extensions) running the CLI on one vault at once: busy is waited out
/// inside the library, so every command succeeds.
@Suite("sessionvault: four processes on one vault at once")
struct ContentionCommandTests {
    @Test func fourLanesOfImportResumeAndInspectAllSucceed() async throws {
        let vault = try await CLIVault.signedIn()
        let commands: [([String], [String], Data?)] = [
            (["import"], ["--now", Fixtures.signIn], Fixtures.goTrueJSON()),
            (["resume"], ["--now", Fixtures.signIn], nil),
            (["inspect"], [], nil)
        ]
        let rounds = 15
        let failures = try await withThrowingTaskGroup(of: [String].self) { group in
            for lane in 0..<4 {
                group.addTask {
                    var failed: [String] = []
                    for round in 0..<rounds {
                        let (command, extra, stdin) = commands[(lane + round) % commands.count]
                        let result = try await vault.run(command, extra, stdin: stdin)
                        if result.status != 0 { failed.append("\(command[0]) exited \(result.status): \(result.stderr)") }
                    }
                    return failed
                }
            }
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }
        #expect(failures.isEmpty, "\(failures)")
        let verify = try await vault.run(["verify"])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }
}
