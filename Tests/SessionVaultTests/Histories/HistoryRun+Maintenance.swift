import Foundation
@testable import SessionVault
#if canImport(Glibc)
import Glibc
#endif

/// What an app does to a vault besides the session itself: rotating its root key and checking
/// the files' integrity.
extension HistoryRun {
    /// The app rekeys its vault to a new key, and the new key takes the old one's place in the
    /// key store (renamed over the key file's path, with its generation record), as an app
    /// replaces its Keychain item. The app restarts; the extensions keep their connections, so
    /// their next call meets a database replaced under them and must reopen through their key
    /// provider, which now gives the new key. Nothing is wiped and the session goes on.
    func rekey(_ index: Int) async -> String {
        guard model.pendingDamage == nil else { return "skipped: the vault is damaged" }
        let next = KeyFileProvider(path: vaultDirectory + "/vault-next-\(index).key")
        let current = KeyFileProvider(path: keyPath)
        do {
            let vault = try await managers[0].vault
            try await vault.rekey(to: next)
            await vault.close()
        } catch {
            fail(index, "the rekey failed: \(error)")
            return "failed"
        }
        // The key store now holds the new key under the old name.
        guard rename(next.path, current.path) == 0 else {
            fail(index, "the new key could not take the old one's place: errno \(errno)")
            return "failed"
        }
        if FileManager.default.fileExists(atPath: next.generationRecordPath) {
            _ = rename(next.generationRecordPath, current.generationRecordPath)
        } else {
            try? FileManager.default.removeItem(atPath: current.generationRecordPath)
        }
        let folder = open(vaultDirectory, O_RDONLY)
        if folder >= 0 { fsync(folder); close(folder) }
        managers[0] = makeManager(0)
        return "rekeyed"
    }

    /// The app records a delegated subject (or returns to the user's own): the session stays,
    /// with the subject the switch named as every actor reads it; without a session the switch
    /// is refused (`noSession`), and on a damaged vault it is refused too.
    func switchSubject(_ index: Int, to subject: String?) async -> String {
        do {
            let vault = try await managers[0].vault
            try await vault.switchActiveSubject(to: subject, validatedBy: "server-validation-\(index)")
        } catch {
            if case .noSession = error, model.family == nil { return "refused: no session" }
            if model.pendingDamage != nil { return "refused: damaged" }
            fail(index, "the subject switch failed: \(error)")
            return "failed"
        }
        if model.family == nil { fail(index, "a subject switch succeeded while the model holds no session") }
        for actor in 1...2 {
            guard let session = (try? await managers[actor].vault.currentSession()) ?? nil else { continue }
            if session.activeSubject != subject {
                fail(index, "\(HistoryStep.name(actor)) reads the active subject \(session.activeSubject ?? "none"), the switch named \(subject ?? "none")")
            }
        }
        return "switched"
    }

    /// A full scan (`Vault.verify`) of the vault `actor` has open: intact unless the history
    /// damaged it and nobody has recovered yet.
    func verify(_ index: Int, actor: Int) async -> String {
        do {
            let report = try await managers[actor].vault.verify()
            texts.append("\(report.findings)")
            if !report.intact && model.pendingDamage == nil {
                fail(index, "verify found \(report.findings.count) findings in a vault the history did not damage: \(report.findings)")
            }
            return report.intact ? "intact" : "damaged (\(report.findings.count))"
        } catch {
            if model.pendingDamage != nil { return "refused: \(error)".prefix(60).description }
            fail(index, "verify failed on a vault the history did not damage: \(error)")
            return "failed"
        }
    }
}
