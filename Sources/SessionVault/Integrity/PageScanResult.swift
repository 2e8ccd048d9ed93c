/// What one pass over every page of a database found.
struct PageScanResult: Sendable, Equatable {
    /// Pages fetched through the codec, the damaged one included.
    var pagesScanned: Int
    /// The database's size in pages, as its pager sees it (file plus write-ahead log).
    var pageCount: Int
    /// The first page whose HMAC did not verify (page numbers start at 1), if any.
    var damagedPage: Int?
    /// A failure not pinned to one page: the database could not be read at all (e.g. page 1
    /// records more pages than the file holds), or an operational error (busy, I/O).
    var failure: SQLiteError?

    /// Every page read and authenticated.
    var isClean: Bool { damagedPage == nil && failure == nil }
}
