/// The library's version, recorded in tombstones and inspections and shown by the CLI (an app
/// reads it from `Tombstone.version` or `VaultInspection.libraryVersion`).
package enum SessionVaultVersion {
    package static let current = "0.1.0"
}
