/// Rows of cells printed with aligned columns (two spaces apart). Widths count characters of
/// the plain text, so colour never breaks the alignment.
struct TextTable {
    /// One cell: its text and an optional style.
    struct Cell: ExpressibleByStringLiteral {
        let text: String
        let style: Console.Style?

        /// `text` is shown with its control characters escaped (see `TerminalText`).
        init(_ text: String, _ style: Console.Style? = nil) {
            self.text = TerminalText.escaped(text)
            self.style = style
        }

        init(stringLiteral value: String) { self.init(value) }
    }

    private(set) var rows: [[Cell]] = []
    let indent: Int

    init(indent: Int = 0) { self.indent = indent }

    mutating func add(_ cells: Cell...) { rows.append(cells) }

    mutating func add(_ cells: [Cell]) { rows.append(cells) }

    /// The table's lines, the last column unpadded.
    func lines(_ console: Console) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        var widths = [Int](repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.text.count) }
        }
        let pad = String(repeating: " ", count: indent)
        return rows.map { row in
            var line = pad
            for (index, cell) in row.enumerated() {
                let last = index == row.count - 1
                line += console.paint(cell.text, cell.style)
                if !last { line += String(repeating: " ", count: widths[index] - cell.text.count + 2) }
            }
            return line
        }
    }

    func print(_ console: Console) {
        for line in lines(console) { console.line(line) }
    }
}
