import ArgumentParser
import Foundation
import SessionVault

/// `sessionvault logout`: signs the current session out, as the app's sign-out button does.
struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Sign out: delete the current session's tokens; the vault then resumes as missing (signedOut).",
        discussion: """
            Deletes the current session's refresh and access tokens and records the sign-out in \
            the audit log; the write-ahead log is truncated, so no copy of the tokens stays in the \
            vault's files. The server is not told: the CLI has no connection to it. Without a \
            current session it marks the vault signed out.
            """ + ExitStatus.help)

    @OptionGroup var options: VaultOptions

    func validate() throws { try options.requireKey() }

    @OptionGroup var clock: ClockOptions

    func run() async throws {
        let console = Console()
        try await CLIFailure.reporting(console, json: options.json) {
            let now = clock.now
            let (session, path) = try await options.withExistingVault(now: now) { vault in
                let session = try await vault.currentSession()
                try await vault.signOut()
                return (session, ResumeDecision.decide(try await vault.snapshot(), now: now, policy: vault.policy))
            }
            if options.json {
                guard case .object(var members) = path.json else { return 0 }
                members["vault"] = .string(options.path)
                members["signedOutSession"] = .string(session?.id)
                members["refreshTokenFingerprint"] = .string(session?.refreshTokenFingerprint?.hex)
                console.line(JSONValue.object(members).rendered())
            } else {
                if let session {
                    console.say("signed out session \(session.id) (\(session.identity.subject)); its tokens are deleted")
                } else {
                    console.say("no current session; the vault is marked signed out")
                }
                var table = TextTable(indent: 2)
                table.add("resume path", TextTable.Cell(path.summary, path.style))
                table.print(console)
            }
            return 0
        }
    }
}
