import Foundation

/// A fresh directory under the system temporary directory, removed when the value is released.
final class TemporaryDirectory: @unchecked Sendable {
    let path: String

    init(_ label: String = "sessionvault-cli") {
        let base = NSTemporaryDirectory() + (NSTemporaryDirectory().hasSuffix("/") ? "" : "/") + "\(label)-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base
    }

    func file(_ name: String) -> String { path + "/" + name }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
