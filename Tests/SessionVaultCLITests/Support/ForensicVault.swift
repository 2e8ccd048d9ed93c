import Foundation
import SessionVault
import SessionVaultTestSupport

/// Vaults in the states an investigator receives them in, made for real: files copied aside while
/// another process had the vault open (a hot write-ahead log), a read-only mount, an older schema.
enum ForensicVault {
    /// A signed-in vault whose second session sits only in the write-ahead log: this process
    /// holds the vault open (its connection's lock keeps the CLI's `import` from checkpointing
    /// on exit), and the files are copied into a new directory before it closes, as a device
    /// image taken from a running app would hold them.
    static func hotWAL() async throws -> CLIVault {
        let live = try await CLIVault.signedIn()
        let holder = try Vault.open(at: live.path, keyProvider: KeyFileProvider(path: live.keyPath), create: false)
        // A write that keeps its log frames (a sign-out or a replacing sign-in truncates the log
        // on purpose, so that no earlier token survives in it).
        let second = try await live.run(["biometric", "enable"])
        guard second.status == 0 else {
            await holder.close()
            throw CLIVault.SetupFailed(step: "second write", result: second)
        }
        let evidence = CLIVault()
        for suffix in ["", "-wal", "-shm", "-header"] {
            try FileManager.default.copyItem(atPath: live.path + suffix, toPath: evidence.path + suffix)
        }
        try FileManager.default.copyItem(atPath: live.keyPath, toPath: evidence.keyPath)
        await holder.close()
        return evidence
    }

    /// A vault whose writer was SIGKILLed with its latest commit only in the write-ahead log:
    /// `VaultTestHost hot-wal` signs in and closes (the main file holds that session at token
    /// version 1), reopens, rotates to a new refresh token and is killed after saying so. The
    /// directory holds the database, `-wal`, `-shm`, `-header`, `-lock` and the key, as a device
    /// image of a running app would. Returns the vault and the rotated token's fingerprint.
    static func killedWriter() async throws -> (vault: CLIVault, rotatedFingerprint: String) {
        let vault = CLIVault()
        let ready = try await KilledWriter.run(["hot-wal", vault.path, vault.keyPath, "\(Fixtures.refreshMarker)-first", "\(Fixtures.refreshMarker)-second"])
        // "ready <fingerprint> v2"
        let words = ready.split(separator: " ")
        guard words.count == 3, words[2] == "v2" else { throw KilledWriter.Failed(description: "unexpected ready line: \(ready)") }
        return (vault, String(words[1]))
    }

    /// A vault wiped by a recovery (a real damaged page, `sessionvault resume`; the tombstone
    /// says why), opened again by an app that changed the biometric preference and was
    /// SIGKILLed before closing: tombstone, database, `-wal` with that change, `-shm`,
    /// `-header`, `-lock` and the new key.
    static func killedWriterBesideTombstone() async throws -> CLIVault {
        let vault = try await CLIVault.signedIn()
        try await vault.damageDatabase()
        let recovered = try await vault.run(["resume"])
        guard recovered.status == 0, vault.exists(vault.tombstone) else { throw CLIVault.SetupFailed(step: "recovery wipe", result: recovered) }
        _ = try await KilledWriter.run(["hot-wal-preference", vault.path, vault.keyPath])
        return vault
    }

    /// The package's Migrations folder, beside this file's target.
    static let migrationsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Migrations").path

    /// A signed-in vault at schema version 3: migrations 7 to 4 undone through the stock shell
    /// with the `export-key` recipe, so any open by this CLI would run them again.
    static func olderSchema() async throws -> CLIVault {
        let vault = try await CLIVault.signedIn()
        let recipe = try await vault.run(["export-key"])
        guard recipe.status == 0, let sqlcipher = CLI.tool("sqlcipher") else { throw CLIVault.SetupFailed(step: "export-key", result: recipe) }
        // Migration 6 added two columns to vault_state; SQLite 3.15 cannot drop a column, so the
        // table is rebuilt as migration 2 made it.
        let undoSix = """
            ALTER TABLE vault_state RENAME TO vault_state_sealed;
            CREATE TABLE vault_state (
                singleton INTEGER PRIMARY KEY NOT NULL CHECK (singleton = 1), current_session_id TEXT REFERENCES sessions(id),
                generation INTEGER NOT NULL, last_wall_clock INTEGER NOT NULL, empty_reason TEXT NOT NULL,
                server_clock_offset INTEGER NOT NULL DEFAULT 0, biometric_preference INTEGER NOT NULL DEFAULT 0,
                audit_seq INTEGER NOT NULL DEFAULT 0);
            INSERT INTO vault_state SELECT singleton, current_session_id, generation, last_wall_clock, empty_reason,
                server_clock_offset, biometric_preference, audit_seq FROM vault_state_sealed;
            DROP TABLE vault_state_sealed;

            """
        // Migration 7 added a column to sessions (the table is rebuilt as migration 1 made it,
        // references to it kept by name) and the refresh reserve table.
        let sessionsColumns = """
            id, issuer, subject, tenant, email, display_name, roles_json, metadata_json, active_subject, active_subject_proof,
            token_type, scope, refresh_token, access_token, refresh_fingerprint, access_fingerprint, access_expires_at,
            server_expires_at, refresh_expires_at, issued_at, absolute_deadline, last_active_at, biometric_enabled,
            biometric_domain_state, token_version, refresh_pending_since, created_at
            """
        let undoSeven = """
            PRAGMA legacy_alter_table = ON;
            ALTER TABLE sessions RENAME TO sessions_seven;
            \(try String(contentsOfFile: Self.migrationsDirectory + "/0001_create_sessions.sql", encoding: .utf8))
            INSERT INTO sessions SELECT \(sessionsColumns) FROM sessions_seven;
            DROP TABLE sessions_seven;
            DROP TABLE refresh_reserve;

            """
        let script =
            recipe.stdout + undoSeven + undoSix
            + "DROP TABLE vault_format;\nDROP TABLE refresh_lease;\nDELETE FROM schema_migrations WHERE version >= 4;\nSELECT max(version) FROM schema_migrations;\n"
        let shell = try await CLI.spawn(sqlcipher, [vault.path], stdin: Data(script.utf8))
        guard shell.status == 0, shell.stdout.hasSuffix("3\n") else { throw CLIVault.SetupFailed(step: "undo migrations 4 to 7", result: shell) }
        return vault
    }
}
