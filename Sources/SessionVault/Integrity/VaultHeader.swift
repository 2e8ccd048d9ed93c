import CSodium

/// The small plaintext file beside the database (`<db>-header`). No secrets: format version,
/// the pinned cipher settings, how the root key is derived, a key check value and the last
/// generation the vault committed.
///
/// It lets open tell "wrong key" (key check value differs) from "damaged file" (key matches but
/// pages do not decrypt) before anything is wiped, and an older database copy put back from
/// "the current one" (its generation is behind the header's).
///
/// The file holds two 128-byte slots, each with its own BLAKE2b checksum; a write goes to the
/// slot not holding the newest copy, so a torn write leaves the other slot valid (the scheme of
/// LMDB's meta pages). Generation-only updates are not fsynced: the database commit before them
/// is, so after a crash the header can lag the database (accepted, then repaired) but never lead
/// it, and a lead is therefore proof of rollback.
///
/// Each slot also carries a keyed tag (bytes 88..<104, integrity subkey): the BLAKE2b checksum
/// catches a torn or rotted slot, but anyone can recompute it, so a header edited to an older
/// generation beside an older database read as consistent. Headers written before the tag
/// existed carry zeroes there; the open signs such a header before it seals the database, so a
/// sealed database beside an unsigned header is never the library's own doing (see `VaultOpener`).
package struct VaultHeader: Sendable, Equatable {
    static let formatVersion: UInt16 = 1
    package static let slotSize = 128
    package static let fileSize = 2 * slotSize
    private static let magic: [UInt8] = Array("SVHDR".utf8) + [0]
    private static let checksummed = 112

    /// SQLCipher settings pinned on every connection, so a file is portable between 3.x and 4.x.
    package static let cipherPageSize: UInt32 = 4096
    static let kdfIterations: UInt32 = 64_000
    /// 1 = HMAC-SHA1 with PBKDF2-HMAC-SHA1 (SQLCipher 3's defaults, settable on 4.x).
    static let hmacAlgorithm: UInt8 = 1

    var sequence: UInt64
    var generation: UInt64
    var derivation: KeyDerivation
    var keyCheckValue: [UInt8]
    /// Set while `rekey` swaps in a re-encrypted file.
    package var rekeyPending: Bool
    /// Which key seals the vault, as its provider names it (`KeyProvider.identity`); nil for a
    /// passphrase (a passphrase is never "lost") and for a header written before identities were
    /// recorded. Kept in the 8 bytes between the keyed tag and the checksum (104..<112): under
    /// the checksum, outside what the tag covers, so an older library's tag check and reading
    /// are unchanged (an older library drops the record when it rewrites the header; the next
    /// open records it again). Unauthenticated, and only ever used to refuse a wipe.
    package var keyIdentity: RecordedKeyIdentity?
    private static let identityRange = 104..<112
    /// The keyed tag as read (all zeroes when unsigned); recomputed on every encode.
    var tag: [UInt8] = [UInt8](repeating: 0, count: 16)

    /// What the keyed tag says about a header read from disk.
    package enum Authenticity: Equatable {
        case authentic
        /// Written before headers were signed (zeroes where the tag goes).
        case unsigned
        /// A tag that this key did not make: the header was edited.
        case forged
    }

    static let tagLabel = "SessionVault header v1"
    private static let tagRange = 88..<104

    package init(
        generation: UInt64, derivation: KeyDerivation, keyCheckValue: [UInt8], sequence: UInt64 = 1, rekeyPending: Bool = false,
        keyIdentity: KeyIdentity? = nil
    ) {
        self.sequence = sequence
        self.generation = generation
        self.derivation = derivation
        self.keyCheckValue = keyCheckValue
        self.rekeyPending = rekeyPending
        if derivation == .stored { self.keyIdentity = keyIdentity.map(RecordedKeyIdentity.init) }
    }

    /// The slot this header is written to.
    var slotOffset: Int { Int(sequence % 2) * Self.slotSize }

    /// The slot's bytes, tagged with `keys` when given (unsigned otherwise: only tests and the
    /// golden files of older releases write that).
    package func encodedSlot(signedWith keys: VaultKeys?) -> [UInt8] {
        var out = unsignedSlotPrefix()
        if let keys { out.replaceSubrange(Self.tagRange, with: keys.integrityTag(Self.tagLabel, Array(out[0..<Self.tagRange.lowerBound]))) }
        if derivation == .stored, let keyIdentity { out.replaceSubrange(Self.identityRange, with: keyIdentity.digest) }
        let digest = Self.checksum(out[0..<Self.checksummed])
        out.replaceSubrange(Self.checksummed..<Self.slotSize, with: digest)
        return out
    }

    /// The tag an encoded slot carries.
    static func tag(ofSlot slot: [UInt8]) -> [UInt8] { Array(slot[tagRange]) }

    /// Checks the tag read from disk against the one `keys` makes for these fields.
    package func authenticity(with keys: VaultKeys) -> Authenticity {
        if tag.allSatisfy({ $0 == 0 }) { return .unsigned }
        let expected = keys.integrityTag(Self.tagLabel, Array(unsignedSlotPrefix()[0..<Self.tagRange.lowerBound]))
        return Sodium.constantTimeEqual(expected, tag) ? .authentic : .forged
    }

    /// The fields laid out in a slot, without tag and checksum: canonical, so the same fields
    /// always give the same bytes to tag.
    private func unsignedSlotPrefix() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.slotSize)
        out.replaceSubrange(0..<6, with: Self.magic)
        Self.put(UInt64(Self.formatVersion), into: &out, at: 6, width: 2)
        Self.put(sequence, into: &out, at: 8, width: 8)
        Self.put(generation, into: &out, at: 16, width: 8)
        Self.put(UInt64(Self.cipherPageSize), into: &out, at: 24, width: 4)
        Self.put(UInt64(Self.kdfIterations), into: &out, at: 28, width: 4)
        out[32] = Self.hmacAlgorithm
        out[34] = rekeyPending ? 1 : 0
        switch derivation {
        case .stored:
            out[33] = 0
        case .argon2id(let salt, let ops, let mem):
            out[33] = 1
            Self.put(ops, into: &out, at: 40, width: 8)
            Self.put(mem, into: &out, at: 48, width: 8)
            out.replaceSubrange(56..<(56 + min(salt.count, 16)), with: salt.prefix(16))
        }
        out.replaceSubrange(72..<(72 + min(keyCheckValue.count, 16)), with: keyCheckValue.prefix(16))
        return out
    }

    /// Whether a header file carries our format magic at the start of either slot: the proof that
    /// a header whose slots fail their checksums is a damaged header of ours, not a foreign file.
    package static func carriesMagic(_ file: [UInt8]) -> Bool {
        [0, slotSize].contains { offset in
            file.count >= offset + magic.count && Array(file[offset..<(offset + magic.count)]) == magic
        }
    }

    /// Decodes the newest valid slot of a header file; nil when neither slot is valid.
    package static func decode(_ file: [UInt8]) -> VaultHeader? {
        guard file.count == fileSize else { return nil }
        let slots = [Array(file[0..<slotSize]), Array(file[slotSize..<fileSize])].compactMap(decodeSlot)
        return slots.max { $0.sequence < $1.sequence }
    }

    private static func decodeSlot(_ slot: [UInt8]) -> VaultHeader? {
        guard Array(slot[0..<6]) == magic,
            checksum(slot[0..<checksummed]) == Array(slot[checksummed..<slotSize]),
            get(slot, 6, 2) == UInt64(formatVersion),
            get(slot, 24, 4) == UInt64(cipherPageSize), get(slot, 28, 4) == UInt64(kdfIterations), slot[32] == hmacAlgorithm
        else { return nil }
        let derivation: KeyDerivation
        switch slot[33] {
        case 0: derivation = .stored
        case 1: derivation = .argon2id(salt: Array(slot[56..<72]), opsLimit: get(slot, 40, 8), memLimit: get(slot, 48, 8))
        default: return nil
        }
        var header = VaultHeader(
            generation: get(slot, 16, 8), derivation: derivation, keyCheckValue: Array(slot[72..<88]),
            sequence: get(slot, 8, 8), rekeyPending: slot[34] == 1)
        let identity = Array(slot[identityRange])
        if derivation == .stored, identity.contains(where: { $0 != 0 }) { header.keyIdentity = RecordedKeyIdentity(digest: identity) }
        header.tag = Array(slot[tagRange])
        return header
    }

    private static func checksum(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 16)
        let input = Array(bytes)
        crypto_generichash(&digest, 16, input, UInt64(input.count), nil, 0)
        return digest
    }

    private static func put(_ value: UInt64, into bytes: inout [UInt8], at offset: Int, width: Int) {
        for index in 0..<width { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }

    private static func get(_ bytes: [UInt8], _ offset: Int, _ width: Int) -> UInt64 {
        (0..<width).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
    }
}

/// A key identity as a vault header records it: an 8-byte BLAKE2b digest of the whole identity.
/// Only compared, never shown as a name (there is no room for one where an older library's tag
/// check cannot see it); messages show it as `#` and 16 hex digits, which the provider's own
/// identity can be matched against.
package struct RecordedKeyIdentity: Sendable, Equatable, CustomStringConvertible {
    let digest: [UInt8]

    init(digest: [UInt8]) { self.digest = digest }

    package init(_ identity: KeyIdentity) {
        let text = Array("SessionVault key identity\u{0}\(identity.kind)\u{0}\(identity.name)".utf8)
        var digest = [UInt8](repeating: 0, count: 8)
        crypto_generichash(&digest, 8, text, UInt64(text.count), nil, 0)
        // All zeros reads as "no record": never written (a chance of 2^-64, taken as one bit).
        if digest.allSatisfy({ $0 == 0 }) { digest[0] = 1 }
        self.init(digest: digest)
    }

    /// Whether `identity` is the recorded one.
    package func names(_ identity: KeyIdentity?) -> Bool {
        guard let identity else { return false }
        return Sodium.constantTimeEqual(digest, RecordedKeyIdentity(identity).digest)
    }

    /// `key #0123456789abcdef`.
    package var description: String { "key #" + Hex.encode(digest) }
}

/// How a provider's identity reads in a message: its name and the digest the vault would record.
extension KeyIdentity {
    package var described: String { "\(self) (\(RecordedKeyIdentity(self)))" }
}

/// What the plaintext header beside a database says, read without any key.
///
/// For an investigator who holds a copied vault but not its key: the header's checksums prove
/// only that the file was not torn, not who wrote it, so every value here is unauthenticated.
/// The key check value and any Argon2id salt are left out (they would let a passphrase be
/// guessed offline).
package struct UnauthenticatedHeader: Sendable, Equatable {
    /// The header format version (1).
    public let formatVersion: Int
    /// The pinned SQLCipher page size (4096).
    public let cipherPageSize: Int
    /// The pinned SQLCipher PBKDF2 iteration count (64,000; unused with the raw key).
    public let kdfIterations: Int
    /// `HMAC_SHA1`: the pinned page HMAC (with PBKDF2_HMAC_SHA1 as the KDF algorithm).
    public let hmacAlgorithm: String
    /// `PBKDF2_HMAC_SHA1`.
    public let kdfAlgorithm: String
    /// `stored` (a 32-byte key file or keystore key) or `argon2id` (a passphrase).
    public let keyDerivation: String
    /// The last generation the header saw committed.
    public let generation: UInt64
    /// Set while a rekey is swapping in a re-encrypted file.
    public let rekeyPending: Bool

    /// Reads the header of the vault whose database is at `databasePath`, without a key and
    /// without writing. Nil when there is no header file.
    /// - Throws: `.corrupted(.headerDamaged)` when neither slot is valid, `.io` or `.unavailable`
    ///   when it cannot be read.
    public static func read(databasePath: String) throws(VaultError) -> UnauthenticatedHeader? {
        guard let header = try HeaderFile.read(at: VaultFiles(database: databasePath).header) else { return nil }
        let derivation: String
        switch header.derivation {
        case .stored: derivation = "stored"
        case .argon2id: derivation = "argon2id"
        }
        return UnauthenticatedHeader(
            formatVersion: Int(VaultHeader.formatVersion), cipherPageSize: Int(VaultHeader.cipherPageSize),
            kdfIterations: Int(VaultHeader.kdfIterations), hmacAlgorithm: "HMAC_SHA1", kdfAlgorithm: "PBKDF2_HMAC_SHA1",
            keyDerivation: derivation, generation: header.generation, rekeyPending: header.rekeyPending)
    }
}
