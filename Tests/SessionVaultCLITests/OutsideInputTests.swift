import Foundation
import Testing
import SessionVaultTestSupport

/// Numbers and files from outside reach the CLI as typed, one-line errors: never a trap
/// (signal 4) and never a hang. Every run is a child process with a deadline, so a regression fails
/// the test instead of killing or hanging the run.
@Suite("sessionvault: outside numbers and non-regular files")
struct OutsideInputTests {
    /// A token response with `field` set to the JSON text `value`.
    static func response(_ field: String, _ value: String) -> Data {
        Data(
            #"{"access_token":"\#(Fixtures.accessMarker)-x","token_type":"bearer","refresh_token":"\#(Fixtures.refreshMarker)-x","\#(field)":\#(value),"user":{"id":"user-123"}}"#
                .utf8)
    }

    @Test func importRefusesEveryOutOfRangeNumber() async throws {
        let vault = try await CLIVault.signedIn()
        let values = [
            "9223372036854775807", "-9223372036854775808", "\"9223372036854775807\"", "1e16", "-1e16", "4e18",
            "1e300", "-1e300", "\"NaN\"", "\"1e16\"", "-1", "1.5"
        ]
        for field in ["expires_in", "expires_at", "refresh_expires_in"] {
            for value in values {
                let result = try await vault.run(["import"], ["--now", Fixtures.signIn], stdin: Self.response(field, value))
                #expect(!result.crashed && result.status < 128, "\(field) = \(value) crashed (status \(result.status))")
                #expect(result.status == 1, "\(field) = \(value)")
                #expect(result.isOneLineError && result.stderr.contains("field \(field)"), "\(field) = \(value): \(result.stderr)")
                #expect(!result.leaksToken)
            }
        }
        // The vault still holds the sign-in from before: nothing was stored, nothing was wiped.
        let resumed = try await vault.run(["resume"], ["--now", Fixtures.signIn, "--json"])
        #expect(resumed.json?["path"] as? String == "valid")
    }

    @Test func nowOutsideYears1To9999IsAUsageError() async throws {
        let vault = try await CLIVault.signedIn()
        for now in ["1e17", "-1e17", "9223372036854775807", "-9223372036854775808", "1e300", "nan", "inf", "253402300800"] {
            for command in [["inspect"], ["resume"], ["import"]] {
                // `--now=…`: a separate "-1e17" would be read as an option, not as the value.
                let result = try await vault.run(command, ["--now=\(now)"], stdin: Fixtures.goTrueJSON())
                #expect(result.stderr.contains("is invalid for '--now"), "\(command) --now \(now): \(result.stderr)")
                #expect(!result.crashed && result.status < 128, "\(command) --now \(now) crashed")
                #expect(result.status == 64, "\(command) --now \(now): \(result.stderr)")
            }
        }
        for now in ["253402300799", "0", "-1"] {
            let result = try await vault.run(["inspect"], ["--now=\(now)"])
            #expect(result.status == 0 || result.status == 2, "--now \(now) is accepted: \(result.stderr)")
            #expect(!result.crashed)
        }
    }

    /// Replaces `path` with a FIFO (a real one, from mkfifo).
    static func makeFIFO(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
    }

    @Test(arguments: ["header", "tombstone", "key"])
    func aFIFOInPlaceOfAVaultFileIsRefusedPromptly(_ which: String) async throws {
        let vault = try await CLIVault.signedIn()
        let path = which == "header" ? vault.header : which == "tombstone" ? vault.tombstone : vault.keyPath
        Self.makeFIFO(path)
        for command in [["resume"], ["inspect"], ["verify"], ["events"], ["import"]] {
            let now = command == ["verify"] || command == ["events"] ? [] : ["--now", Fixtures.signIn]
            let result = try await vault.run(command, now, stdin: Fixtures.goTrueJSON(), timeout: 60)
            // The helper stops a child still running after its timeout (a generous bound for a
            // loaded machine; a blocked open never returns at all): that shows as a crash.
            #expect(!result.crashed, "\(command) with a FIFO \(which) did not return")
            #expect(result.status == 1 || result.status == 2, "\(command) with a FIFO \(which): status \(result.status)")
            #expect(result.isOneLineError, "\(command) with a FIFO \(which): \(result.stderr)")
            #expect(result.stderr.contains("not a regular file"), "\(command) with a FIFO \(which): \(result.stderr)")
        }
        #expect(vault.exists(vault.path), "a FIFO never leads to a wipe")
    }
}
