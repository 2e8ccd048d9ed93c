/// Carries an untyped body's error through the typed `Connection.transaction`: for bodies that
/// mix engine, record and vault errors and leave the mapping to one place above
/// (`VaultError(underlying:files:)`).
struct AnyTransactionFailure: SQLiteFailureCarrying {
    let underlying: any Error

    init(_ underlying: any Error) { self.underlying = underlying }

    init(sqliteFailure failure: SQLiteError) { underlying = failure }
}
