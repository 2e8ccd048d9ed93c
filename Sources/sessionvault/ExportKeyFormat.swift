import ArgumentParser

/// The form `export-key` writes the database key in.
enum ExportKeyFormat: String, ExpressibleByArgument, CaseIterable {
    /// `PRAGMA key = "x'<64 hex>'";`, for the stock `sqlcipher` shell.
    case sqlcipher
}
