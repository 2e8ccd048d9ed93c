// A second process for the multi-process tests (two runtimes or an app and its extension on one
// vault file). Prints one line per result on stdout; never prints a token, only fingerprints.
//
//   VaultTestHost resume <db> <keyfile> <goTrueBaseURL>     one ResumeManager.resume()
//   VaultTestHost rotate <db> <keyfile> <refreshToken>      stores new tokens for the session
//   VaultTestHost signout <db> <keyfile>
//   VaultTestHost open <db> <keyfile>                       opens (creating when absent), prints the snapshot, closes
//   VaultTestHost watch <db> <keyfile> <stopfile>           prints vault events until <stopfile> exists (60 s at most)
import Foundation
import SessionVault

func line(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

func fail(_ text: String) -> Never {
    FileHandle.standardError.write(Data((text + "\n").utf8))
    exit(1)
}

func describe(_ outcome: ResumeOutcome) -> String {
    switch outcome {
    case .home(let session): return "home \(session.refreshTokenFingerprint?.hex ?? "-") v\(session.tokenVersion)"
    case .login(let reason, let message): return "login \(reason.code) \(message)"
    case .locked: return "locked"
    case .offline(_, let retryAfter): return "offline \(retryAfter)"
    case .unavailable(_, let detail): return "unavailable \(detail)"
    }
}

func describe(_ event: VaultEvent) -> String {
    switch event {
    case .tokenUpdated(let fingerprint): return "tokenUpdated \(fingerprint?.hex ?? "-")"
    case .signedOut: return "signedOut"
    case .wiped(let kind): return "wiped \(kind?.rawValue ?? "-")"
    case .biometricChanged(let enabled): return "biometricChanged \(enabled)"
    case .activeSubjectChanged(let subject): return "activeSubjectChanged \(subject ?? "-")"
    case .changedElsewhere: return "changedElsewhere"
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else { fail("usage: VaultTestHost resume|rotate|signout|watch <db> <keyfile> …") }
let keys = KeyFileProvider(path: arguments[3])

do {
    switch arguments[1] {
    case "resume":
        guard arguments.count == 5, let url = URL(string: arguments[4]) else { fail("resume needs a base URL") }
        let manager = ResumeManager(path: arguments[2], keys: keys, refresher: GoTrueRefresher(baseURL: url, apiKey: "anon"))
        line(describe(await manager.resume()))
    case "rotate":
        guard arguments.count == 5 else { fail("rotate needs a refresh token") }
        let vault = try Vault.open(at: arguments[2], keys: keys, create: false)
        let json = #"{"access_token":"access-\#(arguments[4])","token_type":"bearer","expires_in":3600,"refresh_token":"\#(arguments[4])"}"#
        let session = try await vault.rotate(TokenResponse(json: Data(json.utf8)))
        line("rotated \(session.refreshTokenFingerprint?.hex ?? "-")")
    case "open":
        let vault = try Vault.open(at: arguments[2], keys: keys, create: true)
        switch try await vault.snapshot() {
        case .empty(let reason): line("empty \(reason.code)")
        case .session(let session, _, _): line("session \(session.refreshTokenFingerprint?.hex ?? "-")")
        default: line("other")
        }
        await vault.close()
    case "signout":
        let vault = try Vault.open(at: arguments[2], keys: keys, create: false)
        try await vault.signOut()
        line("signedOut")
    case "watch":
        guard arguments.count == 5 else { fail("watch needs a stop file") }
        let vault = try Vault.open(at: arguments[2], keys: keys, create: false)
        let events = await vault.events()
        line("watching")
        let reader = Task {
            for await event in events { line(describe(event)) }
        }
        // Until the test says stop: a fixed watch time would race a busy test machine.
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: arguments[4]) && Date() < deadline {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        reader.cancel()
    default:
        fail("unknown command \(arguments[1])")
    }
} catch {
    fail("error: \(error)")
}
