/// A column value borrowed from a stepped statement: valid only inside
/// `Statement.withRawColumn`, where SQLite still owns the bytes.
enum RawColumn {
    case null
    case integer(Int64)
    case text(UnsafeRawBufferPointer)
    case blob(UnsafeRawBufferPointer)
}
