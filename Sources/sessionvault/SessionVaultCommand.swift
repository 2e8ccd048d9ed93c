import ArgumentParser

@main
struct SessionVaultCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "sessionvault", abstract: "Inspect SessionVault vaults.")
}
