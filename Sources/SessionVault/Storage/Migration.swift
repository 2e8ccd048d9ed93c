import CSodium

/// One numbered schema change, e.g. `0001_create_sessions.sql`.
struct Migration: Sendable, Equatable {
    let version: Int
    let name: String
    let sql: String
    /// BLAKE2b-256 of the file's bytes, hex: recorded when applied, compared on every open.
    let checksum: String

    init(version: Int, name: String, bytes: [UInt8]) {
        self.version = version
        self.name = name
        self.sql = String(decoding: bytes, as: UTF8.self)
        self.checksum = Migration.checksum(of: bytes)
    }

    /// Parses `NNNN_name.sql`; nil for any other file name.
    init?(file: EmbeddedMigrationFile) {
        let stem = file.fileName.hasSuffix(".sql") ? String(file.fileName.dropLast(4)) : ""
        guard let underscore = stem.firstIndex(of: "_"),
              let version = Int(stem[..<underscore]), version > 0
        else { return nil }
        self.init(version: version, name: String(stem[stem.index(after: underscore)...]), bytes: file.bytes)
    }

    static func checksum(of bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        // libsodium's generichash is BLAKE2b; it cannot fail for these sizes.
        _ = bytes.withUnsafeBufferPointer { input in
            crypto_generichash(&digest, digest.count, input.baseAddress, UInt64(input.count), nil, 0)
        }
        return Hex.encode(digest)
    }
}
