import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// Processes creating a vault at once on an empty directory (an app and its extensions launched
/// together). A vault being created is never "corrupted": no process wipes another's, none sees a
/// raw SQLite error, and every store a process was told succeeded is on disk or was superseded by a
/// later store.
@Suite("Processes creating one vault at the same moment")
struct ConcurrentCreationTests {
    static let processes = 4
    static let rounds = 6

    @Test("N processes open and store on an empty directory, released together: no wipe, no raw error, no lost store")
    func simultaneousCreationNeverWipes() async throws {
        for round in 1...Self.rounds {
            let directory = TemporaryDirectory("creation")
            let path = directory.file("vault.db")
            let keyPath = directory.file("vault.key")
            let start = directory.file("start")
            var hosts: [TestHostProcess] = []
            for index in 0..<Self.processes {
                hosts.append(try TestHostProcess(["create-and-store", path, keyPath, start, "race-\(round)-\(index)-refresh"], scratch: directory))
            }
            // Every process is up and waiting; then all are released by one event.
            for host in hosts { #expect(await host.waitFor("ready")) }
            _ = FileManager.default.createFile(atPath: start, contents: nil)

            var storedFingerprints: [String] = []
            for (index, host) in hosts.enumerated() {
                let status = await host.finish()
                let output = host.output
                #expect(status == 0, "round \(round), process \(index): \(output)")
                for forbidden in ["wipedAfterCorruption", "corrupted", "truncated", "SQLite", "sqlite", "already exists", "I/O", "unavailable"] {
                    #expect(!output.contains(forbidden), "round \(round), process \(index) said \(forbidden): \(output)")
                }
                if let stored = host.lines.first(where: { $0.hasPrefix("stored ") }) {
                    storedFingerprints.append(String(stored.dropFirst("stored ".count)))
                }
            }
            #expect(storedFingerprints.count == Self.processes, "round \(round): \(storedFingerprints.count) stores succeeded")
            #expect(!FileManager.default.fileExists(atPath: VaultFiles(database: path).tombstone), "round \(round): a wipe left a tombstone")

            // One vault, one current session: the last store. Every other store that succeeded
            // is in its history, superseded (the audit log records each store in commit order).
            let vault = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath), create: false)
            let stores = try await vault.auditEvents(limit: 100).filter { $0.kind == .stored }.sorted { $0.id < $1.id }
            let current = try await vault.currentSession()?.refreshTokenFingerprint?.hex
            #expect(current != nil && current == stores.last?.fingerprint?.hex, "round \(round): the current session is not the last store")
            let committed = Set(stores.compactMap { $0.fingerprint?.hex })
            for fingerprint in storedFingerprints {
                #expect(committed.contains(fingerprint), "round \(round): a store reported as successful is not in the vault")
            }
            #expect(stores.count == Self.processes, "round \(round): \(stores.count) stores recorded")
            await vault.close()
        }
    }
}
