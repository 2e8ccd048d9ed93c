import Foundation

/// A fresh directory under the system temporary directory, removed when the value is released.
/// (A small copy of the SessionVaultTests helper: test targets cannot import each other.)
final class TemporaryDirectory: @unchecked Sendable {
    let path: String

    init(_ label: String = "sessionvault-corruption") {
        let base = (NSTemporaryDirectory() as NSString).appendingPathComponent("\(label)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    /// Every regular file below the directory.
    func allFiles() -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: path) else { return [] }
        var files: [String] = []
        for case let relative as String in enumerator {
            let full = file(relative)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue { files.append(full) }
        }
        return files.sorted()
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
