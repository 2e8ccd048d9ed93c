import Foundation
import SessionVault

extension FuzzTarget {
    /// A fixed root key for the targets that need one (the generation record's tag, the header's
    /// signature), so that the seeds made with it stay meaningful across runs. Never a real key.
    static let referenceKeys: VaultKeys? = {
        var bytes = (0..<RootKey.byteCount).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        guard let root = try? SecretBytes(consuming: &bytes) else { return nil }
        return try? VaultKeys(root: root)
    }()

    /// The key file and the generation record beside it, written to disk and read back through
    /// `KeyFileProvider`, as an open reads them.
    ///
    /// Input: byte 0 even, the rest is the key file; odd, the rest is `<key>.generation` beside
    /// a valid key file. What must hold: a key comes back only from a file of the key file's
    /// size, magic, version and checksum, and it is the file's key bytes; a file that does not
    /// start with our magic and version is `misconfigured` (never `invalid` or `missing`, which
    /// an open reads as a lost key), except the one state a wipe stopped between its overwrite
    /// and its unlink leaves (exactly a key file's length of zeros), which is `missing`; a
    /// generation record is accepted only when it is exactly the record the reference key would
    /// write for what it decodes to.
    public static func keyFile(_ input: [UInt8]) -> String? {
        guard let mode = input.first else { return nil }
        let bytes = Array(input.dropFirst())
        let scratch = FuzzScratch.shared
        let path = scratch.path("fuzz.key")
        if mode & 1 == 1 { return generationRecord(bytes, keyPath: path) }
        guard scratch.put(bytes, at: path) else { return "setup: the key file could not be written" }
        let provider = KeyFileProvider(path: path)
        let ours =
            bytes.count >= KeyFileProvider.magic.count + 1
            && Array(bytes.prefix(KeyFileProvider.magic.count)) == KeyFileProvider.magic
            && bytes[KeyFileProvider.magic.count] == KeyFileProvider.version
        let shredded = bytes.count == KeyFileProvider.fileSize && bytes.allSatisfy { $0 == 0 }
        do {
            let root = try provider.rootKey(recorded: .stored, create: false)
            guard bytes.count == KeyFileProvider.fileSize, ours else { return "a key came from a file that is not a whole key file of ours" }
            let same = root.bytes.withUnsafeBytes { Array($0) == Array(bytes[8..<(8 + RootKey.byteCount)]) }
            if !same { return "the key read is not the file's key bytes" }
        } catch {
            switch error {
            case .missing: if !shredded { return "an existing key file was reported missing" }
            case .invalid: if !ours { return "a file that is not ours was reported as a damaged key (\(error))" }
            case .misconfigured:
                if ours { return "a key file of ours was called foreign" }
                if shredded { return "a shredded key (only zeros) was called foreign instead of missing" }
            default: break
            }
        }
        return nil
    }

    private static func generationRecord(_ bytes: [UInt8], keyPath: String) -> String? {
        let scratch = FuzzScratch.shared
        let provider = KeyFileProvider(path: keyPath)
        guard scratch.put(bytes, at: provider.generationRecordPath) else { return "setup: the generation record could not be written" }
        let read: [UInt8]?
        do { read = try provider.generationRecord() } catch { return "reading a generation record threw \(error)" }
        if let read, read != bytes { return "the generation record read is not the file's bytes" }
        guard let read, let keys = referenceKeys, let witness = GenerationWitness.decode(read, keys: keys) else { return nil }
        if witness.encoded(keys: keys) != read { return "a generation record decoded to a witness that encodes differently" }
        return nil
    }
}
