import Foundation

/// Whether the bytes hold `text` (UTF-8): how a test looks for a token marker in a file.
extension Data {
    func contains(_ text: String) -> Bool { range(of: Data(text.utf8)) != nil }
}
