import Foundation

/// The `roles_json` column: a JSON array of strings.
///
/// The library writes it with JSONEncoder, so it is almost always plain `["a","b"]` with no
/// escapes; that form is split directly (verify reads it for every stored session, and a full
/// JSON parse was a large share of that pass). Anything else (escapes, non-ASCII, odd spacing)
/// goes through JSONSerialization, so the answer is the same either way.
enum RolesJSON {
    /// The column's text for `roles`, as JSONEncoder writes it.
    static func encode(_ roles: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(roles)) ?? Data("[]".utf8), as: UTF8.self)
    }

    static func decode(_ text: String) -> [String]? {
        if let fast = decodePlain(text) { return fast }
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String]
    }

    /// `[]` or `["x","y",…]` whose strings hold printable ASCII other than `"` and `\`; nil
    /// for anything else.
    private static func decodePlain(_ text: String) -> [String]? {
        var bytes = Array(text.utf8)[...]
        guard bytes.first == UInt8(ascii: "["), bytes.last == UInt8(ascii: "]") else { return nil }
        bytes = bytes.dropFirst().dropLast()
        if bytes.isEmpty { return [] }
        var roles: [String] = []
        while true {
            guard bytes.first == UInt8(ascii: "\"") else { return nil }
            bytes = bytes.dropFirst()
            guard let close = bytes.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
            let value = bytes[bytes.startIndex..<close]
            guard value.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") }) else { return nil }
            roles.append(String(decoding: value, as: UTF8.self))
            bytes = bytes[bytes.index(after: close)...]
            if bytes.isEmpty { return roles }
            guard bytes.first == UInt8(ascii: ",") else { return nil }
            bytes = bytes.dropFirst()
        }
    }
}
