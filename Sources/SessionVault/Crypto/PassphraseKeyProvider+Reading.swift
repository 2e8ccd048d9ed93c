#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

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
            let buffer = try SecretBytes(count: maximumPassphraseLength + 1, filling: { (base, capacity) throws(KeyProviderError) in
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
