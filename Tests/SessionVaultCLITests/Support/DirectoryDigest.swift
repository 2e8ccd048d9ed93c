import Foundation
import SessionVault

/// Every file of a directory by name with its SHA-256: two equal values mean no byte of any file
/// changed and no file appeared or vanished.
struct DirectoryDigest: Equatable, CustomStringConvertible {
    let files: [String: String]

    init(_ directory: String) {
        var files: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            let bytes = FileManager.default.contents(atPath: directory + "/" + name).map(Array.init) ?? []
            files[name] = SHA256Digest.hex(bytes)
        }
        self.files = files
    }

    /// Names and short digests only: a digest of a key file reveals nothing of the key.
    var description: String { files.keys.sorted().map { "\($0)=\(files[$0]!.prefix(12))" }.joined(separator: " ") }
}
