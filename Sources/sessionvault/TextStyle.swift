/// An ANSI SGR style for terminal output. Applied only when stdout is a terminal (see `Console`).
enum TextStyle: String {
    case bold = "1"
    case dim = "2"
    case red = "31"
    case green = "32"
    case yellow = "33"
    case blue = "34"
    case magenta = "35"
    case cyan = "36"
    case boldRed = "1;31"
    case boldGreen = "1;32"

    /// `text` wrapped in this style's escape sequence and a reset.
    func apply(to text: String) -> String { "\u{1B}[\(rawValue)m\(text)\u{1B}[0m" }
}
