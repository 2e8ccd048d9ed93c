/// JSON string escaping straight from bytes, so a token is never turned into a `String`.
enum JSONText {
    static func escaped<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var out: [UInt8] = []
        let hex = Array("0123456789abcdef".utf8)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), byte]
            case 0..<0x20: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        return out
    }
}

extension JSONText {
    /// `text` escaped for the inside of a JSON string (for values that are no secret).
    static func string(_ text: String) -> String {
        String(decoding: escaped(Array(text.utf8)), as: UTF8.self)
    }
}
