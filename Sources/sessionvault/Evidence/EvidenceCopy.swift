import Foundation
import SessionVault
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// A private copy of a vault's files, made before a read-only command opens anything.
///
/// Opening a SQLCipher database in WAL mode writes: it recovers a hot log, checkpoints it into
/// the main file on close and deletes `-wal` and `-shm`; the library's open also runs pending
/// migrations and catches the header's generation up. Each of those would change evidence (the
/// log may hold the very pages an investigator needs). So the read-only commands open this copy,
/// in a fresh 0700 directory, and the originals are only ever read: with `O_RDONLY`, once, here,
/// and once more at the end to prove they did not change. The key is read where it is.
final class EvidenceCopy {
    /// The files as given.
    let original: VaultFiles
    /// The private directory holding the copy.
    let directory: String
    /// The copy's files.
    let copy: VaultFiles
    /// Each original file as read, with its digest.
    let files: [EvidenceFile]
    /// The original write-ahead log, when there is one.
    let wal: WALSummary?
    private let databaseBytes: [UInt8]?

    init(of original: VaultFiles) throws(CLIFailure) {
        self.original = original
        var template =
            Array(
                (NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/")
                    .utf8CString.dropLast()) + Array("sessionvault-evidence-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CLIFailure("a private directory for the copy cannot be made: \(String(cString: strerror(errno)))")
        }
        directory = String(cString: made)
        copy = VaultFiles(database: PathText.join(directory, PathText.lastComponent(of: original.database)))
        var read: [EvidenceFile] = []
        var walBytes: [UInt8]?, database: [UInt8]?
        do {
            for (role, source, target) in Self.roles(original, copy) {
                guard let (file, bytes) = try EvidenceFile.read(role: role, path: source) else { continue }
                try Self.write(bytes, to: target)
                read.append(file)
                if role == "wal" { walBytes = bytes }
                if role == "database" { database = bytes }
            }
        } catch {
            Self.remove(directory)
            throw error
        }
        files = read
        databaseBytes = database
        wal = walBytes.flatMap(WALSummary.init)
    }

    /// The files that make up the evidence, in the order they are listed: every file the
    /// library's open reads or acts on, so that the copy opens the way the app's open would.
    /// A rekey killed after its switch leaves `-rekey`, which the open renames over the database
    /// (the roll forward); without it the copy's open read the old database with the new key and
    /// called a healthy vault "corrupted: wipe everything". A creation cut short leaves
    /// `-creating` (and its journal), which the open's next creation removes. The lock files hold
    /// no data and the decision never reads them; the copy's open makes its own.
    static func roles(_ original: VaultFiles, _ copy: VaultFiles) -> [(String, String, String)] {
        [
            ("database", original.database, copy.database), ("wal", original.wal, copy.wal),
            ("shm", original.sharedMemory, copy.sharedMemory), ("journal", original.journal, copy.journal),
            ("header", original.header, copy.header), ("tombstone", original.tombstone, copy.tombstone),
            ("rekey", original.rekeyTemporary, copy.rekeyTemporary), ("creating", original.creating, copy.creating),
            ("creating-journal", original.creatingJournal, copy.creatingJournal)
        ]
    }

    /// Pages of the copy's main file that differ after the command closed it from the original
    /// main file: the pages the log (or a migration) held that the main file did not. Nil when
    /// the copy cannot be read back.
    func pagesChanged(pageSize: Int = 4096) -> Int? {
        guard let before = databaseBytes, let after = FileManager.default.contents(atPath: copy.database).map(Array.init) else { return nil }
        let pages = (max(before.count, after.count) + pageSize - 1) / pageSize
        var changed = 0
        for page in 0..<pages {
            let range = (page * pageSize)..<((page + 1) * pageSize)
            let old = range.lowerBound < before.count ? before[range.clamped(to: 0..<before.count)] : []
            let new = range.lowerBound < after.count ? after[range.clamped(to: 0..<after.count)] : []
            if old != new { changed += 1 }
        }
        return changed
    }

    /// Reads the originals again: the names of those that differ from what was read first,
    /// appeared or vanished. Empty is the proof the command changed nothing.
    func changedOriginals() -> [String] {
        var changed: [String] = []
        for (role, source, _) in Self.roles(original, copy) {
            let before = files.first { $0.role == role }
            let after = (try? EvidenceFile.read(role: role, path: source)).map { $0.0 }
            if before?.sha256 != after?.sha256 || before?.size != after?.size { changed.append(source) }
        }
        return changed
    }

    /// A message from the library names the copy's files; show the originals' names instead.
    func originalPaths(in text: String) -> String {
        text.replacingOccurrences(of: copy.database, with: original.database)
    }

    /// Deletes the copy and its directory.
    func remove() { Self.remove(directory) }

    private static func remove(_ directory: String) { try? FileManager.default.removeItem(atPath: directory) }

    private static func write(_ bytes: [UInt8], to path: String) throws(CLIFailure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CLIFailure("the private copy \(path) cannot be made: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        // Array's withUnsafeBytes rethrows untyped: carry the typed error out by hand.
        var failure: FileIOError?
        bytes.withUnsafeBytes { buffer in
            do throws(FileIOError) { try FileIO.writeAll(descriptor, buffer, path: path) } catch { failure = error }
        }
        if let failure {
            throw CLIFailure("the private copy \(path) cannot be written: \(String(cString: strerror(failure.errno)))")
        }
    }
}
