import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

extension KeyFileProvider {
    /// Where the generation record is kept: beside the key file, not beside the database, so
    /// that putting the vault's files back from an older copy leaves it as it was.
    public var generationRecordPath: String { path + ".generation" }

    /// The record's bytes, or nil when there is no file (or it cannot be read: the record is a
    /// second line of defence and never keeps a vault from opening).
    public func generationRecord() throws(KeyProviderError) -> [UInt8]? {
        do {
            let bytes = try FileIO.read(generationRecordPath)
            return bytes.count <= GenerationWitness.recordSize ? bytes : nil
        } catch {
            return nil
        }
    }

    /// Overwrites the record in place (one `pwrite` of a fixed size; not fsynced: see
    /// `KeyProvider.storeGenerationRecord`). A torn write leaves bytes whose tag fails, read as
    /// no record.
    public func storeGenerationRecord(_ record: [UInt8]) throws(KeyProviderError) {
        do {
            // Non-blocking and type-checked: this runs after a write's commit, inside its
            // structure lock, and a FIFO planted where the record belongs blocked the open for
            // good.
            let descriptor = try FileIO.openRegularFile(generationRecordPath, O_WRONLY | O_CREAT)
            defer { close(descriptor) }
            let written = record.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
            _ = try FileIO.valueOrErrno(written, "pwrite", generationRecordPath)
        } catch {
            throw .writeFailed(error)
        }
    }

    /// Removes the record with the key (`destroyKey`): only a file that carries the record's
    /// magic and size, so nothing else that happens to sit at that name is deleted.
    func removeGenerationRecord() throws(FileIOError) {
        guard let bytes = try? FileIO.read(generationRecordPath), GenerationWitness.isRecord(bytes) else { return }
        try FileIO.removeIfPresent(generationRecordPath)
    }
}
