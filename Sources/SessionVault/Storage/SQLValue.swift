/// A value bound to, or read from, an SQL statement.
enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])
}

extension Optional where Wrapped == String {
    var sqlValue: SQLValue { map(SQLValue.text) ?? .null }
}

extension Optional where Wrapped == Int64 {
    var sqlValue: SQLValue { map(SQLValue.integer) ?? .null }
}

extension Optional where Wrapped == [UInt8] {
    var sqlValue: SQLValue { map(SQLValue.blob) ?? .null }
}
