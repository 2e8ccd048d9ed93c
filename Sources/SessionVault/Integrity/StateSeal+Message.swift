extension StateSeal {
    /// The bytes the seal's tag is computed over: the state's generation, vault id, biometric
    /// preference and current session id, then `sessionColumns` of the current session (all null
    /// when there is none), each value as it is stored.
    ///
    /// Each value is its type, length and bytes, so that no two different rows encode alike: tag
    /// 0 null, 1 an integer as 8 little-endian bytes, 2 text (a REAL as its text), 3 a blob, each
    /// tag followed by the length as 8 little-endian bytes. This encoding is the seal's format:
    /// changing it would make every sealed vault read as a rollback (`StateSealFormatTests`
    /// rebuilds it from SQL alone).
    struct Message {
        private(set) var bytes: [UInt8] = []

        init() { bytes.reserveCapacity(1024) }

        mutating func append(_ value: RawColumn) {
            switch value {
            case .null:
                put(0, UnsafeRawBufferPointer(start: nil, count: 0))
            case .integer(let number):
                bytes.append(1)
                appendLittleEndian(8)
                appendLittleEndian(UInt64(bitPattern: number))
            case .text(let text):
                put(2, text)
            case .blob(let blob):
                put(3, blob)
            }
        }

        /// The session columns of a state with no current session (what the LEFT JOIN reads).
        mutating func appendAbsentSession() {
            for _ in StateSeal.sessionColumns { append(.null) }
        }

        private mutating func put(_ tag: UInt8, _ value: UnsafeRawBufferPointer) {
            bytes.append(tag)
            appendLittleEndian(UInt64(value.count))
            bytes.append(contentsOf: value)
        }

        private mutating func appendLittleEndian(_ value: UInt64) {
            for shift in stride(from: UInt64(0), to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
        }
    }
}
