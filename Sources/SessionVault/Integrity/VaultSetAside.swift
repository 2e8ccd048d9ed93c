import Foundation

/// Moves a vault this library cannot read (a newer SessionVault's format) out of the way without
/// deleting it: into a directory beside it named `<database>.needs-schema-<N>` (`-2`, `-3`, …
/// when one exists), keeping each file's name. The app can then sign in to a fresh vault at the
/// same path; a later version finds the set-aside copies with `Vault.setAsideVaults(at:)`. The key
/// stays where it is (the fresh vault uses the same key provider), so the copy stays readable.
enum VaultSetAside {
    static func directoryPrefix(for files: VaultFiles) -> String { files.database + ".needs-schema-" }

    /// Moves the database and its sidecars (header, log, shared memory, journal) into a new
    /// set-aside directory and returns it. The database moves last: a crash part-way leaves the
    /// database in place with a missing header, which the next open reports, never a vault that
    /// silently lost its header.
    static func setAside(_ files: VaultFiles, readableSince: Int) throws(VaultError) -> String {
        let base = directoryPrefix(for: files) + String(readableSince)
        var target = base
        var suffix = 2
        while FileIO.exists(target) {
            target = "\(base)-\(suffix)"
            suffix += 1
        }
        do {
            try FileIO.valueOrErrno(mkdir(target, 0o700), "mkdir", target)
            for file in [files.header, files.wal, files.sharedMemory, files.journal, files.database] where FileIO.exists(file) {
                let destination = target + "/" + (file as NSString).lastPathComponent
                try FileIO.valueOrErrno(rename(file, destination), "rename", file)
            }
            try FileIO.fsyncDirectory(target)
            try FileIO.fsyncDirectory(files.directory)
        } catch {
            throw .io(error)
        }
        return target
    }

    /// The set-aside directories of the vault at `files`, oldest name first, each with the
    /// schema version it needs.
    static func find(_ files: VaultFiles) -> [(path: String, readableSince: Int)] {
        let prefix = (directoryPrefix(for: files) as NSString).lastPathComponent
        let names = (try? FileManager.default.contentsOfDirectory(atPath: files.directory)) ?? []
        return names.sorted().compactMap { name in
            guard name.hasPrefix(prefix) else { return nil }
            let version = name.dropFirst(prefix.count).prefix { $0.isNumber }
            guard let readableSince = Int(version) else { return nil }
            return (files.directory + "/" + name, readableSince)
        }
    }
}
