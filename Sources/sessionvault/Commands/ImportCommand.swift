import ArgumentParser
import Foundation
import SessionVault

/// `sessionvault import`: stores a token response read on standard input as the current session.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store a token response (Supabase GoTrue or RFC 6749 JSON, on standard input) as the current session.",
        discussion: """
            Creates the vault (and, with --key-file, its key) when absent. With --passphrase-stdin \
            the first line of standard input is the passphrase and the rest is the token response. \
            It says when it created the key file, and when nothing changed (the same tokens again). \
            It prints the stored session as resume does: subject, tenant and roles, the tokens' \
            fingerprints and expiries, and the path the app would take now.
            """ + ExitStatus.help)

    @OptionGroup var options: VaultOptions

    func validate() throws { try options.requireKey() }

    @OptionGroup var clock: ClockOptions

    @Flag(help: "Turn on biometric unlock for this session (default: keep the device's preference).")
    var biometric = false

    func run() async throws {
        let console = Console()
        try await CLIFailure.reporting(console, json: options.json) {
            let now = clock.now
            let location = try options.location()
            if location.databaseExists { try location.requireVault() } else { try location.requireCreatable() }
            if StandardInput.isTerminal {
                throw CLIFailure("import reads a token response (JSON) on standard input; pipe it in, e.g. `sessionvault import ... < response.json`")
            }
            let keys = try options.keyProvider()
            let response: TokenResponse = try StandardInput.withRemainingBytes { data in
                if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
                    throw CLIFailure("standard input is empty: expected a token response (JSON)")
                }
                do {
                    return try TokenResponse(json: data)
                } catch {
                    throw CLIFailure("standard input: \(error)")
                }
            }
            guard response.identity != nil else {
                throw CLIFailure("standard input: the token response names no user (no user.id, and no sub claim in the access or ID token)")
            }
            // A key file that is absent now and present after the open was made by it: say so,
            // the user must keep it.
            let keyExisted = options.keyFile.map { FileManager.default.fileExists(atPath: $0) } ?? true
            let vault = try Vault.open(at: options.path, keyProvider: keys, clock: { now }, create: true)
            let keyCreated = !keyExisted && options.keyFile.map { FileManager.default.fileExists(atPath: $0) } == true
            let session: Session
            let path: ResumePath
            let changed: Bool
            do {
                // Every write leaves an audit event; storing the tokens already stored is a no-op
                // and leaves none, so the latest event tells whether anything changed.
                let latestBefore = try await vault.auditEvents(limit: 1).last?.id
                session = try await vault.store(response, biometricEnabled: biometric ? true : nil)
                changed = try await vault.auditEvents(limit: 1).last?.id != latestBefore
                path = ResumeDecision.decide(try await vault.snapshot(), now: now, policy: vault.policy)
            } catch {
                await vault.close()
                throw error
            }
            await vault.close()
            if options.json {
                guard case .object(var members) = path.json else { return 0 }
                members["vault"] = .string(options.path)
                members["created"] = .bool(!location.databaseExists)
                members["keyCreated"] = .bool(keyCreated)
                members["changed"] = .bool(changed)
                members["session"] = session.json
                console.line(JSONValue.object(members).rendered())
            } else {
                if !location.databaseExists {
                    console.say("created \(options.path): session for \(session.identity.subject)")
                } else if changed {
                    console.say("stored in \(options.path): session for \(session.identity.subject)")
                } else {
                    console.say("nothing changed in \(options.path): these tokens are already stored for \(session.identity.subject)")
                }
                if keyCreated, let keyFile = options.keyFile {
                    console.say("created key file \(keyFile) (32 random bytes, mode 0600): keep it, the vault cannot be opened without it")
                }
                var table = TextTable(indent: 2)
                for row in session.rows(now: now) { table.add(row) }
                table.add("resume path", TextTable.Cell(path.summary, path.style))
                table.print(console)
            }
            return 0
        }
    }
}
