import Foundation
import SessionVault

extension VaultOptions {
    /// Opens the existing vault, runs `body` with it, and closes it whether `body` throws or not:
    /// a command never leaves the vault's connection (and its WAL) open behind an error.
    func withExistingVault<T>(now: Date, keys: (any KeyProvider)? = nil, _ body: (Vault) async throws -> T) async throws -> T {
        try location().requireVault()
        let vault = try open(try keys ?? keyProvider(), now: now)
        do {
            let result = try await body(vault)
            await vault.close()
            return result
        } catch {
            await vault.close()
            throw error
        }
    }
}
