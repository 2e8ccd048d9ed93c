/// The vault's generation as kept by the key provider (see `KeyProvider.generationRecord`).
///
/// Layout (46 bytes): `SVGEN1`, the vault id (16 bytes, `vault_state.vault_id`), the generation
/// (8 bytes, little endian) and a tag under the integrity subkey over the rest and the key check
/// value. A record of another vault (a later vault made at the same path with the same key, or
/// a second vault sharing the key) or one that fails its tag is not this vault's, and is ignored:
/// the record only ever adds a refusal for a restored copy, never one for a healthy vault.
package struct GenerationWitness: Equatable {
    static let recordSize = 46
    private static let magic: [UInt8] = Array("SVGEN1".utf8)
    static let label = "SessionVault generation witness v1"

    let vaultID: [UInt8]
    let generation: UInt64

    package init(vaultID: [UInt8], generation: UInt64) {
        self.vaultID = vaultID
        self.generation = generation
    }

    package func encoded(keys: VaultKeys) -> [UInt8] {
        let body = Self.magic + vaultID + (0..<8).map { UInt8(truncatingIfNeeded: generation >> (8 * UInt64($0))) }
        return body + keys.integrityTag(Self.label, body + keys.keyCheckValue)
    }

    /// Whether `bytes` have a record's size and magic (its tag needs the key to check).
    static func isRecord(_ bytes: [UInt8]) -> Bool {
        bytes.count == recordSize && Array(bytes[0..<6]) == magic
    }

    /// The record if it is well formed and tagged by `keys`; nil otherwise.
    package static func decode(_ record: [UInt8], keys: VaultKeys) -> GenerationWitness? {
        guard isRecord(record) else { return nil }
        let body = Array(record[0..<30])
        guard Sodium.constantTimeEqual(keys.integrityTag(label, body + keys.keyCheckValue), Array(record[30..<46])) else { return nil }
        let generation = (0..<8).reduce(UInt64(0)) { $0 | UInt64(record[22 + $1]) << (8 * UInt64($1)) }
        return GenerationWitness(vaultID: Array(record[6..<22]), generation: generation)
    }

    /// Stores `generation` with the provider, best effort: a provider that cannot store it now
    /// leaves the record lagging, which is accepted. A vault without an id (sealed schema not yet
    /// reached) has no record to keep.
    ///
    /// Why the write error is ignored, and what a missing record costs: the record only ever
    /// proves a rollback (a database put back from an older copy together with its header). A
    /// record that lags, or is absent, proves nothing and never stops a good vault; what a
    /// failed write costs is that one restore of an older copy, made before the next successful
    /// write, goes undetected (the older copy then opens as what it is: an older, consistent
    /// state). Failing the commit for it instead would turn a full disk beside the key, or a
    /// keystore busy for a moment, into a failed sign-in or a lost rotation, which is worse.
    static func store(vaultID: [UInt8]?, generation: UInt64, keys: VaultKeys, in provider: any KeyProvider) {
        guard let vaultID else { return }
        try? provider.storeGenerationRecord(GenerationWitness(vaultID: vaultID, generation: generation).encoded(keys: keys))
    }
}
