import Foundation

extension VaultOpener {
    /// Completes a rekey that stopped after its header switch: the re-encrypted copy replaces
    /// the database (roll forward), then the pending flag is cleared.
    func finishRekey(_ header: VaultHeader, keys: VaultKeys) throws(VaultError) -> VaultHeader {
        do {
            if FileIO.exists(files.rekeyTemporary) { try files.promoteRekeyedCopy() }
            var done = header
            done.rekeyPending = false
            let file = try HeaderFile(path: files.header, header: header, keys: keys)
            try file.write(done, durable: true)
            return file.current
        } catch {
            throw .io(error)
        }
    }
}
