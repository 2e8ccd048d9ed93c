import Foundation
import SessionVault

extension VaultInspection.FileSizes {
    var json: JSONValue {
        .object([
            "database": .int(database),
            "wal": .int(wal),
            "shm": .int(sharedMemory),
            "journal": .int(journal),
            "header": .int(header),
            "tombstone": .int(tombstone)
        ])
    }

    /// One row per file: its name and size, or `absent`.
    func table(vault path: String, indent: Int) -> TextTable {
        var table = TextTable(indent: indent)
        let name = PathText.lastComponent(of: path)
        for (suffix, size) in [
            ("", database), ("-wal", wal), ("-shm", sharedMemory), ("-journal", journal),
            ("-header", header), ("-tombstone", tombstone)
        ] {
            table.add(TextTable.Cell(name + suffix), TextTable.Cell(size.map { "\($0) bytes" } ?? "absent", size == nil ? .dim : nil))
        }
        return table
    }
}
