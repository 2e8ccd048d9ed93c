/// Which files a corruption diagnosis was made on: device and inode of the database, its header
/// and the key file, the header's bytes and its key check value. Captured under the structure
/// lock when the damage is found, carried in the `CorruptionReason`, and compared under the
/// exclusive lock right before a recovery wipe deletes anything.
///
/// Why: a diagnosis and the wipe it leads to are two moments. In between another process may
/// have recovered the same vault and a user signed in afresh: a new database, header and key at
/// the same paths. Wiping then would destroy a healthy session. An inode number alone does not
/// tell (a new file can get the number of one just deleted); the header's bytes do, as a new
/// vault has a new key check value. Plain numbers and public header bytes, no secret.
package struct DiagnosedFiles: Sendable, Equatable {
    /// Device and inode of one file.
    package struct FileID: Sendable, Equatable {
        package let device: UInt64
        package let inode: UInt64

        package init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }
    }

    /// The database file; nil when there was none.
    package var database: FileID?
    /// The header file; nil when there was none. Compared only when `wholeHeader`.
    package var header: FileID?
    /// The header's bytes; nil when there was none. Compared only when `wholeHeader`.
    package var headerBytes: [UInt8]?
    /// The key check value the header recorded; nil when no header could be decoded.
    package var keyCheckValue: [UInt8]?
    /// The key file's path, when the key provider keeps its key in a file; nil otherwise.
    package var keyFilePath: String?
    /// The key file at `keyFilePath`; nil when there was none.
    package var keyFile: FileID?
    /// Whether the header file's identity and bytes are part of the proof. False for damage
    /// found by a vault that was already open: its header moves with every commit (generation),
    /// so there the database it has open and the key check value are what identify the vault.
    package var wholeHeader: Bool

    package init(
        database: FileID?, header: FileID?, headerBytes: [UInt8]?, keyCheckValue: [UInt8]?,
        keyFilePath: String?, keyFile: FileID?, wholeHeader: Bool
    ) {
        self.database = database
        self.header = header
        self.headerBytes = headerBytes
        self.keyCheckValue = keyCheckValue
        self.keyFilePath = keyFilePath
        self.keyFile = keyFile
        self.wholeHeader = wholeHeader
    }

    /// Whether `now` (captured the same way, with the same key file path) shows the files that
    /// were diagnosed: every part this diagnosis recorded is unchanged.
    package func sameFiles(as now: DiagnosedFiles) -> Bool {
        guard database == now.database, keyCheckValue == now.keyCheckValue else { return false }
        if wholeHeader, header != now.header || headerBytes != now.headerBytes { return false }
        if keyFilePath != nil, keyFile != now.keyFile { return false }
        return true
    }
}
