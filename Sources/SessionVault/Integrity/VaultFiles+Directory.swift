import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

extension VaultFiles {
    /// How many missing directories above the database one open creates at most: an app names
    /// a folder or two inside its container, never a deep tree.
    static let mostDirectoriesCreated = 8

    /// Creates the directory the vault lives in when it is missing, with any missing directories
    /// above it, each mode 0700 and made durable in its parent (else a power cut could take away
    /// a vault whose own commits were durable). On iOS, Application Support does not exist until
    /// an app creates it; without this every launch would answer `unavailable` for ever.
    ///
    /// Existing directories on the way are taken as they are, symbolic links included (on iOS
    /// and macOS the containers themselves sit behind `/var` → `/private/var`): they are the
    /// system's or the app's. What this creates is only ever a new, empty directory; a dangling
    /// link or a component that is not a directory is refused before anything is written.
    /// - Throws: `.misconfigured` when a component is not a directory, is a link to nothing, or
    ///   more than `mostDirectoriesCreated` are missing; `.unavailable` for any other failure.
    func createMissingDirectories() throws(VaultError) {
        var missing: [String] = []
        var current = directory
        while true {
            var info = stat()
            if stat(current, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    throw .misconfigured("\(current) is not a directory; the vault \(database) cannot be created there")
                }
                break
            }
            let failure = errno
            guard failure == ENOENT else {
                if failure == ENOTDIR { throw .misconfigured("a component of \(current) is not a directory; the vault \(database) cannot be created there") }
                throw .unavailable(
                    retryAfter: 1, detail: "the vault's directory cannot be looked at now: \(FileIOError(operation: "stat", path: current, errno: failure))")
            }
            var link = stat()
            if lstat(current, &link) == 0 { throw .misconfigured("\(current) is a symbolic link to nothing; the vault \(database) cannot be created there") }
            missing.append(current)
            guard missing.count <= Self.mostDirectoriesCreated else {
                throw .misconfigured("more than \(Self.mostDirectoriesCreated) directories above \(database) are missing; check the path")
            }
            let parent = FileIO.parentDirectory(of: current)
            if parent == current { break }
            current = parent
        }
        for created in missing.reversed() {
            if mkdir(created, 0o700) != 0 {
                let failure = errno
                // Another process (an extension starting at the same moment) made it first: fine
                // when it is a real directory.
                var info = stat()
                if failure == EEXIST, lstat(created, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { continue }
                if failure == EEXIST { throw .misconfigured("\(created) appeared meanwhile and is not a directory") }
                throw .unavailable(
                    retryAfter: 1, detail: "the vault's directory cannot be created now: \(FileIOError(operation: "mkdir", path: created, errno: failure))")
            }
            do { try FileIO.fsyncDirectory(FileIO.parentDirectory(of: created)) } catch { throw .io(error) }
        }
    }
}
