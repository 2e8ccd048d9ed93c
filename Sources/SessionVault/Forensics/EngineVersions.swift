/// The database engine this process links, asked without opening any vault (for a
/// chain-of-custody record, which must name the engine even when no key is given).
package struct EngineVersions: Sendable, Equatable {
    /// `PRAGMA cipher_version`, e.g. `3.4.1`; empty if the linked library is not SQLCipher.
    public let cipherVersion: String
    /// The SQLite library under SQLCipher, e.g. `3.15.2`.
    public let sqliteVersion: String

    /// Asks an in-memory connection: it touches no file.
    public static func current() -> EngineVersions {
        var cipher = ""
        if let connection = try? Connection(path: ":memory:", create: true), let version = try? connection.cipherVersion() {
            cipher = version
        }
        return EngineVersions(cipherVersion: cipher, sqliteVersion: Connection.sqliteVersion)
    }
}
