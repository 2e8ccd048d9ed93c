import SessionVault

/// One change the vault-open target makes to a copy of the fixture's files.
///
/// Input layout, repeated up to `limit` times: an operation byte (file = byte % 3: database,
/// write-ahead log, header; kind = byte / 3 % 3: overwrite, truncate, flip), a 3-byte little
/// endian offset taken modulo the file's size plus one, and for overwrite and flip a length
/// byte (modulo 64) followed by that many bytes (fewer if the input ends). An overwrite may run
/// past the end and extend the file by at most 64 bytes; a truncation cuts at the offset.
struct VaultMutation: Equatable {
    enum File: Int, CaseIterable { case database, wal, header }
    enum Kind: Equatable { case overwrite([UInt8]), truncate, flip([UInt8]) }

    let file: File
    let offset: Int
    let kind: Kind

    static let limit = 4
    static let maximumLength = 64

    static func parse(_ input: [UInt8]) -> [VaultMutation] {
        var mutations: [VaultMutation] = []
        var index = 0
        while mutations.count < limit, index + 4 <= input.count {
            let operation = Int(input[index])
            let offset = Int(input[index + 1]) | Int(input[index + 2]) << 8 | Int(input[index + 3]) << 16
            index += 4
            guard let file = File(rawValue: operation % 3) else { break }
            let kindCode = operation / 3 % 3
            if kindCode == 1 {
                mutations.append(VaultMutation(file: file, offset: offset, kind: .truncate))
                continue
            }
            let length = index < input.count ? Int(input[index]) % maximumLength : 0
            index += 1
            let end = min(input.count, index + length)
            let bytes = index < end ? Array(input[index..<end]) : []
            index = end
            mutations.append(VaultMutation(file: file, offset: offset, kind: kindCode == 0 ? .overwrite(bytes) : .flip(bytes)))
        }
        return mutations
    }

    /// The mutation applied to `bytes`, the file's current contents.
    func apply(to bytes: inout [UInt8]) {
        let start = offset % (bytes.count + 1)
        switch kind {
        case .truncate:
            bytes.removeSubrange(start...)
        case .overwrite(let new):
            for (step, byte) in new.enumerated() {
                let position = start + step
                if position < bytes.count { bytes[position] = byte } else { bytes.append(byte) }
            }
        case .flip(let mask):
            for (step, byte) in mask.enumerated() where start + step < bytes.count {
                // A zero mask byte would change nothing: flip the lowest bit instead.
                bytes[start + step] ^= byte == 0 ? 1 : byte
            }
        }
    }

    /// The input bytes that parse back to this mutation (for the seed corpus).
    var encoded: [UInt8] {
        let kindCode: Int
        var tail: [UInt8] = []
        switch kind {
        case .overwrite(let bytes): kindCode = 0; tail = [UInt8(truncatingIfNeeded: bytes.count)] + bytes
        case .truncate: kindCode = 1
        case .flip(let bytes): kindCode = 2; tail = [UInt8(truncatingIfNeeded: bytes.count)] + bytes
        }
        return [
            UInt8(truncatingIfNeeded: kindCode * 3 + file.rawValue), UInt8(truncatingIfNeeded: offset),
            UInt8(truncatingIfNeeded: offset >> 8), UInt8(truncatingIfNeeded: offset >> 16)
        ] + tail
    }
}
