import Foundation
import Testing
@testable import SessionVault

extension CorruptionRecovery {
    /// The format marker (`vault_format.readable_since`, migration 5) with a schema one migration
    /// ahead of this library, made here the way a newer SessionVault would make it.
    @Suite("A vault from a newer SessionVault: read when the format allows it, set aside when not")
    struct FormatMarkerTests {
        /// A newer library: this one's migrations plus one more.
        static func newerLibrary(_ sql: String) -> Migrator {
            let newest = EmbeddedMigrations.all.last?.version ?? 0
            return Migrator(migrations: EmbeddedMigrations.all + [Migration(version: newest + 1, name: "from_the_next_version", bytes: Array(sql.utf8))])
        }

        static let additive = "ALTER TABLE sessions ADD COLUMN device_label TEXT;\nCREATE TABLE devices (id TEXT PRIMARY KEY NOT NULL);\n"
        static var breaking: String {
            let next = (EmbeddedMigrations.all.last?.version ?? 0) + 1
            return "ALTER TABLE sessions ADD COLUMN token_format INTEGER NOT NULL DEFAULT 2;\nUPDATE vault_format SET readable_since = \(next);\n"
        }

        @Test("an additive migration ahead: this library opens the vault, session intact, verifies and writes; the newer one reads it back")
        func additiveChangeKeepsTheSession() async throws {
            let fixture = try await DamageFixture.make()
            let newer = Self.newerLibrary(Self.additive)
            #expect(try newer.migrate(try fixture.raw(), now: 1) == [newer.newestVersion])

            let examination = await fixture.examine()
            #expect(examination.openError == nil, "\(examination.openError.map { "\($0)" } ?? "")")
            #expect(examination.dataUnaltered == true, "the session reads exactly as it was written")
            #expect(examination.report?.intact == true)

            let vault = try fixture.open()
            #expect(vault.setAside == nil)
            try await vault.rotate(TokenValues.response(7, withIdentity: false))
            await vault.close()
            // The newer library finds its own history intact and its column still there.
            let connection = try fixture.raw()
            #expect(try newer.migrate(connection, now: 2).isEmpty)
            #expect(try connection.scalarInt("SELECT count(device_label) FROM sessions") == 0)
            #expect(try connection.scalarInt("SELECT count(*) FROM sessions") ?? 0 >= 1)
        }

        @Test("a migration ahead that raises the marker: its own error, then set aside (not deleted), a fresh vault, found later")
        func incompatibleChangeIsSetAside() async throws {
            let fixture = try await DamageFixture.make()
            let newer = Self.newerLibrary(Self.breaking)
            let sessionID = try #require(fixture.expected?.session.id)
            try newer.migrate(try fixture.raw(), now: 1)
            let before = try Data(contentsOf: URL(fileURLWithPath: fixture.path))

            // Without create (a tool's look): its own error, not damage, and nothing moves.
            let error = #expect(throws: VaultError.self) { try fixture.open() }
            guard case .newerFormat(let format)? = error else {
                Issue.record("expected newerFormat, got \(error.map { "\($0)" } ?? "nothing")")
                return
            }
            #expect(format.readableSince == newer.newestVersion)
            #expect(format.newestKnown == newer.newestVersion - 1)
            #expect(format.setAsideAt == nil)
            #expect(FileManager.default.fileExists(atPath: fixture.path))
            #expect(!FileManager.default.fileExists(atPath: fixture.files.tombstone), "not damage: no tombstone")

            // The app's open (create): the files move aside, and a fresh vault takes the path.
            let vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys)
            let setAside = try #require(vault.setAside?.setAsideAt)
            #expect(vault.setAside?.readableSince == newer.newestVersion)
            #expect(setAside.hasSuffix("vault.db.needs-schema-\(newer.newestVersion)"))
            #expect(try await vault.currentSession() == nil, "the app signs in to the fresh vault")
            await vault.close()
            #expect(!FileManager.default.fileExists(atPath: fixture.files.tombstone), "not damage: no tombstone")
            #expect(try Data(contentsOf: URL(fileURLWithPath: setAside + "/vault.db")) == before, "moved, not changed")
            #expect(FileManager.default.fileExists(atPath: setAside + "/vault.db-header"))
            #expect(Vault.setAsideVaults(at: fixture.path).map(\.readableSince) == [newer.newestVersion])

            // A later version that knows the migration finds the set-aside vault, session intact.
            let later = DamageFixture()
            try FileManager.default.copyItem(atPath: setAside + "/vault.db", toPath: later.path)
            try FileManager.default.copyItem(atPath: fixture.keyPath, toPath: later.keyPath)
            let connection = try later.raw()
            #expect(try newer.migrate(connection, now: 2).isEmpty)
            let statement = try connection.prepare("SELECT id FROM sessions")
            var ids: [String] = []
            while try statement.step() { ids.append(statement.text(0) ?? "") }
            #expect(ids.contains(sessionID))
        }
    }
}
