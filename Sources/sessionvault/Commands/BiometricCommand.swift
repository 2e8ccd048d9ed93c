import ArgumentParser
import Foundation
import SessionVault

/// `sessionvault biometric enable|disable`: the "unlock with biometrics" preference.
struct BiometricCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "biometric",
        abstract: "Turn biometric unlock on or off for the current session and the device preference.",
        discussion: """
            Sets the biometric unlock flag of the current session and the device's preference \
            (the one a new sign-in starts with), and records the change in the audit log.
            """ + ExitStatus.help)

    @Argument(help: ArgumentHelp("enable or disable."))
    var setting: Setting

    @OptionGroup var options: VaultOptions

    func validate() throws { try options.requireKey() }

    @OptionGroup var clock: ClockOptions

    func run() async throws {
        let console = Console()
        try await CLIFailure.reporting(console, json: options.json) {
            let now = clock.now
            let session = try await options.withExistingVault(now: now) { vault in
                try await vault.setBiometricUnlock(setting.isEnabled)
                return try await vault.currentSession()
            }
            if options.json {
                // "session" is the session object, as in resume, import and inspect; never its id alone.
                console.line(
                    JSONValue.object([
                        "vault": .string(options.path),
                        "biometricEnabled": .bool(setting.isEnabled),
                        "session": session?.json ?? .null
                    ]).rendered())
            } else {
                let state = setting.isEnabled ? "enabled" : "disabled"
                if let session {
                    console.say("biometric unlock \(state) for session \(session.id) (\(session.identity.subject)) and as the device preference")
                } else {
                    console.say("biometric unlock \(state) as the device preference (no current session)")
                }
            }
            return 0
        }
    }
}

extension BiometricCommand {
    /// `enable` or `disable`, the command's argument.
    enum Setting: String, ExpressibleByArgument, CaseIterable {
        case enable
        case disable

        var isEnabled: Bool { self == .enable }
    }
}
