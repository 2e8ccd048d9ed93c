/// A vault written by a newer SessionVault in a format this library cannot read (its format
/// marker asks for a newer schema). Not damage: the file is set aside, untouched, under a name
/// that says why, so the app can sign in to a fresh vault and a later upgrade can still find it.
public struct NewerVaultFormat: Error, Sendable, Equatable, CustomStringConvertible {
    /// The oldest schema version that can read the vault (its `vault_format.readable_since`).
    public let readableSince: Int
    /// The newest schema version this library ships.
    public let newestKnown: Int
    /// The directory the vault's files were moved to; nil until they are.
    public let setAsideAt: String?

    package init(readableSince: Int, newestKnown: Int, setAsideAt: String? = nil) {
        self.readableSince = readableSince
        self.newestKnown = newestKnown
        self.setAsideAt = setAsideAt
    }

    public var description: String {
        "written by a newer SessionVault: readable by schema \(readableSince) and later, this library knows \(newestKnown)"
            + (setAsideAt.map { "; set aside at \($0)" } ?? "")
    }
}

/// The library's version, recorded in tombstones and inspections and shown by the CLI (an app
/// reads it from `Tombstone.version` or `VaultInspection.libraryVersion`).
package enum SessionVaultVersion {
    package static let current = "0.1.0"
}
