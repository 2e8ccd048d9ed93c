import Foundation
import SessionVault

/// The vault on its own: a tool, or an app that refreshes by itself. Open it once per process
/// and keep it; a manager can borrow it later with ResumeManager(vault:refresher:).
func vaultOnItsOwn(path: String, keyPath: String, signIn: Data, refresh: Data) async throws {
    let vault = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))   // creates it and its key if absent
    let session = try await vault.store(TokenResponse(json: signIn), biometricEnabled: false)
    print(session)                                          // fingerprints and expiries, never a token
    print(try await vault.resumePath())                     // the decision alone: no refresh, no wipe
    let access = try await vault.accessToken()              // the cached access token, or nil
    _ = access?.withRevealedBytes { bytes in bytes.count }  // reveal only for the request that sends it
    try await vault.rotate(TokenResponse(json: refresh))    // both tokens, one durable transaction
    try await vault.touch()                                 // user activity (idle timeout); coalesced
    try await vault.switchActiveSubject(to: "patient-42", validatedBy: "proof-from-your-server")
    try await vault.signOut()                               // tokens, access cache, unlock state: gone
    try await vault.wipe()                                  // crypto-shred, delete every file; closes the vault
}
