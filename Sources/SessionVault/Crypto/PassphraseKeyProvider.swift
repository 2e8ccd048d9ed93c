import CSodium
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// A root key derived from a passphrase with Argon2id (libsodium `crypto_pwhash`).
///
/// The salt and limits are generated when the vault is created and recorded in the vault header,
/// so the same passphrase gives the same key later. Argon2id costs tens of milliseconds by
/// design: use it where a person types a passphrase (the CLI), never on an app's launch path.
public struct PassphraseKeyProvider: KeyProvider {
    private let passphrase: SecretBytes
    private let opsLimit: UInt64
    private let memLimit: UInt64

    /// - Parameters:
    ///   - passphrase: the passphrase bytes (UTF-8), in locked memory.
    ///   - opsLimit: Argon2id passes for a new vault (libsodium's interactive preset by default,
    ///     within `opsLimitRange`). An existing vault always uses the limits in its header.
    ///   - memLimit: Argon2id memory in bytes for a new vault (interactive preset by default,
    ///     within `memLimitRange`).
    public init(
        passphrase: SecretBytes,
        opsLimit: UInt64 = UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE),
        memLimit: UInt64 = UInt64(crypto_pwhash_MEMLIMIT_INTERACTIVE)
    ) {
        self.passphrase = passphrase
        self.opsLimit = opsLimit
        self.memLimit = memLimit
    }

    /// The Argon2id pass counts accepted, from a header or for a new vault: libsodium's minimum
    /// up to 10 (its "sensitive" preset is 4).
    public static let opsLimitRange: ClosedRange<UInt64> = UInt64(crypto_pwhash_opslimit_min())...10

    /// The Argon2id memory limits accepted, in bytes: libsodium's minimum up to its "sensitive"
    /// preset (1 GiB).
    public static let memLimitRange: ClosedRange<UInt64> = UInt64(crypto_pwhash_memlimit_min())...UInt64(crypto_pwhash_memlimit_sensitive())

    public func rootKey(recorded: KeyDerivation?, create: Bool) throws(KeyProviderError) -> RootKey {
        let derivation: KeyDerivation
        switch recorded {
        case .argon2id?:
            derivation = recorded ?? .stored
        case .stored?:
            throw .misconfigured("this vault was not created from a passphrase")
        case nil:
            guard create else { throw .misconfigured("no key derivation parameters recorded for this vault") }
            derivation = .argon2id(salt: Sodium.randomBytes(Int(crypto_pwhash_SALTBYTES)), opsLimit: opsLimit, memLimit: memLimit)
        }
        guard case .argon2id(let salt, let ops, let mem) = derivation, salt.count == Int(crypto_pwhash_SALTBYTES) else {
            throw .invalid("recorded Argon2id parameters are malformed")
        }
        // The limits come from the header, which is checksummed but not authenticated: anyone
        // who can write it could ask for 2^63 bytes (a trap converting to Int) or 2^32 passes
        // (hours of work). Refused, not wiped: the key itself was never tried.
        guard Self.opsLimitRange.contains(ops), Self.memLimitRange.contains(mem) else {
            throw .misconfigured(
                "Argon2id limits ops \(ops), mem \(mem) bytes are outside \(Self.opsLimitRange.lowerBound)...\(Self.opsLimitRange.upperBound) passes and \(Self.memLimitRange.lowerBound)...\(Self.memLimitRange.upperBound) bytes"
            )
        }
        do {
            let key = try SecretBytes(
                count: RootKey.byteCount,
                filling: { (output, outputCount) throws(CryptoError) in
                    let rc = passphrase.withBytePointer { phrase, phraseCount in
                        phrase.withMemoryRebound(to: CChar.self, capacity: max(phraseCount, 1)) { characters in
                            crypto_pwhash(
                                output, UInt64(outputCount), characters, UInt64(phraseCount),
                                salt, ops, Int(clamping: mem), crypto_pwhash_ALG_ARGON2ID13)
                        }
                    }
                    if rc != 0 { throw CryptoError.keyDerivationFailed }
                })
            return RootKey(bytes: key, derivation: derivation)
        } catch {
            throw .crypto(error)
        }
    }
}

extension PassphraseKeyProvider {
    /// The longest passphrase line `reading(fromDescriptor:)` accepts, in bytes.
    package static let maximumPassphraseLength = 1024

    /// A provider whose passphrase is the first line read from `descriptor` (a command-line
    /// tool's standard input). The line is read one byte at a time straight into locked memory,
    /// so nothing after it is consumed and no `String` or array ever holds it; the newline (and
    /// a `\r` before it) is not part of the passphrase.
    /// - Throws: `.missing` when the input ends before any byte, `.invalid` for an empty or
    ///   over-long line, `.unavailable` when reading fails.
    package static func reading(fromDescriptor descriptor: Int32) throws(KeyProviderError) -> PassphraseKeyProvider {
        var length = 0
        var sawAnyByte = false
        let line: SecretBytes
        do {
            let buffer = try SecretBytes(
                count: maximumPassphraseLength + 1,
                filling: { (base, capacity) throws(KeyProviderError) in
                    while true {
                        let n = read(descriptor, base + length, 1)
                        if n < 0 {
                            if errno == EINTR { continue }
                            throw KeyProviderError.unavailable(retryAfter: 1, detail: "standard input could not be read (errno \(errno))")
                        }
                        if n == 0 { break }
                        sawAnyByte = true
                        if base[length] == UInt8(ascii: "\n") { base[length] = 0; break }
                        length += 1
                        if length == capacity { throw KeyProviderError.invalid("the passphrase is longer than \(maximumPassphraseLength) bytes") }
                    }
                    if length > 0 && base[length - 1] == UInt8(ascii: "\r") { length -= 1 }
                })
            line = try buffer.withUnsafeBytes { (bytes) throws(KeyProviderError) in
                do throws(CryptoError) { return try SecretBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[0..<length])) } catch { throw .crypto(error) }
            }
        }
        guard sawAnyByte else { throw .missing("no passphrase on standard input") }
        guard line.count > 0 else { throw .invalid("the passphrase on standard input is empty") }
        return PassphraseKeyProvider(passphrase: line)
    }
}
