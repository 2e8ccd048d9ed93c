extension DiagnosedFiles {
    /// The files at the vault's paths now: what a diagnosis records and what the wipe compares
    /// it with. Nothing here fails: a file that cannot be looked at is recorded as absent, which
    /// can only make the comparison fail (then nothing is wiped and the caller decides again).
    /// - Parameters:
    ///   - keyFilePath: the key file to identify, if the key lives in one (`keyFilePath(of:)`).
    ///   - wholeHeader: see `DiagnosedFiles.wholeHeader`.
    static func capture(_ files: VaultFiles, keyFilePath: String?, wholeHeader: Bool = true) -> DiagnosedFiles {
        let headerBytes = try? FileIO.read(files.header)
        return DiagnosedFiles(database: identity(of: files.database), header: identity(of: files.header), headerBytes: headerBytes,
                              keyCheckValue: headerBytes.flatMap(VaultHeader.decode)?.keyCheckValue,
                              keyFilePath: keyFilePath, keyFile: keyFilePath.flatMap(identity(of:)), wholeHeader: wholeHeader)
    }

    /// The key file of `provider`, when it keeps its key in one.
    static func keyFilePath(of provider: (any KeyProvider)?) -> String? {
        (provider as? KeyFileProvider)?.path
    }

    /// Whether the files at the vault's paths are still the ones diagnosed.
    func stillThere(_ files: VaultFiles) -> Bool {
        sameFiles(as: Self.capture(files, keyFilePath: keyFilePath, wholeHeader: wholeHeader))
    }

    private static func identity(of path: String) -> FileID? {
        guard let info = try? FileIO.status(path) else { return nil }
        return FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}
