/// The statements that open a vault in a stock `sqlcipher` shell, in the order they must run.
///
/// The key comes first (SQLCipher 4.7 refuses any statement before it), then every pinned cipher
/// setting, before the first read. Each shell needs a different part and ignores the rest:
/// Debian's 3.4.1 defaults to 1024-byte pages, so it needs the page size (and does not know the
/// algorithm pragmas, which SQLite then ignores as unknown); a 4.x shell defaults to 4096-byte
/// pages with HMAC-SHA512 and needs the SHA1 algorithms. The raw key form skips the KDF, but the
/// KDF settings are pinned too so the recipe states the vault's settings completely.
enum ExportKeyRecipe {
    /// Before the key in its raw form `x'<64 hex>'`.
    static let keyPrefix: StaticString = "PRAGMA key = \""
    /// After it.
    static let keySuffix: StaticString = "\";"
    /// The settings after the key, one statement each.
    static let settings = [
        "PRAGMA cipher_page_size = 4096;",
        "PRAGMA kdf_iter = 64000;",
        "PRAGMA cipher_hmac_algorithm = HMAC_SHA1;",
        "PRAGMA cipher_kdf_algorithm = PBKDF2_HMAC_SHA1;",
    ]
}
