import Foundation

extension Vault {
    /// The SQLCipher key of the database at `path`, in the raw-key form `x'<64 hex>'` (67 bytes),
    /// for opening the file with the stock `sqlcipher` shell during an investigation.
    ///
    /// This is the one deliberate exception to "no secret leaves the library". It hands over the
    /// page key only: tokens stay sealed under the separate field key (another subkey of the same
    /// root), so the shell shows metadata and sealed blobs, never a token. Write the bytes out
    /// straight from the returned locked memory (e.g. with `write(2)`); never build a `String`.
    ///
    /// Needs no open of the database: the header and the key check value are enough, so the key
    /// of a damaged vault can be exported too.
    /// - Throws: `.corrupted(.wrongKey)` when the key does not match this vault,
    ///   `.corrupted(.keyMissing)` when there is no key, `.corrupted(.headerDamaged)` when the
    ///   header is missing or unreadable, `.unavailable` when the key cannot be read now.
    package static func exportDatabaseKey(at path: String, keyProvider provider: any KeyProvider) throws(VaultError) -> SecretBytes {
        let files = VaultFiles(database: path)
        guard let header = try HeaderFile.read(at: files.header) else {
            throw .corrupted(CorruptionReason(.headerDamaged, "no vault header at \(files.header)"))
        }
        // The same key acquisition and key-check-value comparison as every open.
        let keys = try VaultOpener(files: files, keyProvider: provider, now: Date(), create: false).unlock(header)
        do { return try keys.databaseRawKey } catch { throw .crypto(error) }
    }
}
