/// How a transaction takes its locks.
enum TransactionKind: String, Sendable {
    /// Takes the write lock at BEGIN: a busy database fails up front, not halfway through.
    case immediate = "BEGIN IMMEDIATE"
    /// Takes locks lazily: for read-only work.
    case deferred = "BEGIN DEFERRED"
}
