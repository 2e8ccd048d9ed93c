import Foundation
import SessionVault
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// One vault file as the CLI read it: the line of the chain-of-custody record an investigator
/// compares with their own `sha256sum` and `stat` of the evidence.
struct EvidenceFile: Equatable {
    /// `database`, `wal`, `shm`, `journal`, `header`, `tombstone`, `rekey`, `creating` or
    /// `creating-journal` (see `EvidenceCopy.roles`).
    let role: String
    let path: String
    let size: Int
    let modified: Date
    let sha256: String

    /// Reads the whole file, read-only and without following a link (an investigator's copy
    /// may hold one planted there); nil when it does not exist.
    static func read(role: String, path: String) throws(CLIFailure) -> (EvidenceFile, [UInt8])? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw CLIFailure("\(path) cannot be read: \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw CLIFailure("\(path) is not a regular file; it is not read")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc_read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw CLIFailure("\(path) cannot be read: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        // Darwin names the modification time st_mtimespec; glibc and Bionic st_mtim.
        #if canImport(Glibc) || canImport(Android)
        let mtime = info.st_mtim
        #else
        let mtime = info.st_mtimespec
        #endif
        let modified = Date(timeIntervalSince1970: Double(mtime.tv_sec) + Double(mtime.tv_nsec) / 1e9)
        return (EvidenceFile(role: role, path: path, size: bytes.count, modified: modified, sha256: SHA256Digest.hex(bytes)), bytes)
    }

    var json: JSONValue {
        .object([
            "role": .string(role), "path": .string(path), "size": .int(size),
            "modified": .string(TimeFormat.iso(modified)), "sha256": .string(sha256)
        ])
    }
}

@inline(__always) private func Glibc_read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}
