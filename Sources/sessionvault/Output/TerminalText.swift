/// Text from outside (a subject from the server's `user.id` or an unverified JWT `sub`, a vault
/// path, an error quoting either) made safe to show on a terminal: an escape sequence in it
/// must be shown, never obeyed, or it could clear the screen or spoof a line of the report of a
/// tool meant for investigators. JSON output does not go through this: its encoder escapes
/// control characters itself, so the exact value survives.
enum TerminalText {
    /// Every control character (C0, DEL, C1, and the Unicode line and paragraph separators and
    /// bidirectional overrides) as a visible escape: `\e`, `\n`, `\r`, `\t`, `\u{…}`.
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\u{1B}": out += "\\e"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\\": out += "\\\\"
            default: out += "\\u{" + String(scalar.value, radix: 16) + "}"
            }
        }
        return out
    }

    /// A backslash is escaped too once anything is, so `\e` in the output always means ESC.
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
