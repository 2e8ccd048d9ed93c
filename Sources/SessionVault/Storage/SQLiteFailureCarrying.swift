/// An error type that can carry an engine failure: what lets `Connection.transaction` be generic
/// over its body's error type (a BEGIN or COMMIT that fails arrives as that type), the way
/// `CryptoFailureCarrying` does for `SecretBytes`, so that no caller needs a cast ladder.
protocol SQLiteFailureCarrying: Error {
    /// The error that says the engine failed with `failure`.
    init(sqliteFailure failure: SQLiteError)
}

extension SQLiteError: SQLiteFailureCarrying {
    init(sqliteFailure failure: SQLiteError) { self = failure }
}
