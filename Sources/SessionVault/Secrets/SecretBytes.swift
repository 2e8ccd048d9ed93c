import CSodium

/// Key material in locked memory.
///
/// The bytes live in locked memory (`mlock`ed so they are never swapped out): a slot of the
/// `LockedArena` for small secrets, a `sodium_malloc` allocation with its own guard pages for
/// large ones. They are zeroed when the last reference goes. There is no
/// `description` of the bytes, no `Codable`, and `==` runs in constant time. Bytes are reached
/// only through `withUnsafeBytes`.
public final class SecretBytes: @unchecked Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    // Sendable: the allocation is written only during initialization, then only read.
    private let pointer: UnsafeMutableRawPointer
    /// Number of bytes held.
    public let count: Int
    /// The arena slot size, or 0 for a `sodium_malloc` allocation of its own.
    private let slotSize: Int

    /// Allocates `count` zeroed bytes of locked memory and lets `initialize` fill them.
    convenience init(count: Int, initialize: (UnsafeMutableRawBufferPointer) -> Void) throws(CryptoError) {
        try self.init(
            count: count,
            filling: { pointer, count in
                initialize(UnsafeMutableRawBufferPointer(start: pointer, count: count))
            })
    }

    /// Same, for a filler that can fail: its error type carries the allocation failure too (see
    /// `CryptoFailureCarrying`), so the caller gets one typed error and needs no cast ladder.
    convenience init<E: CryptoFailureCarrying>(count: Int, initialize: (UnsafeMutableRawBufferPointer) throws(E) -> Void) throws(E) {
        try self.init(
            count: count,
            filling: { (pointer, count) throws(E) in
                try initialize(UnsafeMutableRawBufferPointer(start: pointer, count: count))
            })
    }

    /// Allocates with a non-optional pointer for C functions whose parameters are non-null.
    convenience init(count: Int, filling initialize: (UnsafeMutablePointer<UInt8>, Int) -> Void) throws(CryptoError) {
        try self.init(count: count, filling: { (pointer, count) throws(CryptoError) in initialize(pointer, count) })
    }

    /// The one allocation path, generic over the filler's error type (as swift-crypto's
    /// `SecureBytes` is over its initializer's): the error is the filler's own, or the
    /// allocation failure carried in that type.
    init<E: CryptoFailureCarrying>(count: Int, filling initialize: (UnsafeMutablePointer<UInt8>, Int) throws(E) -> Void) throws(E) {
        do {
            try Sodium.ensureInitialized()
        } catch {
            throw E(cryptoFailure: error)
        }
        if let slot = LockedArena.shared.allocate(max(count, 1)) {
            self.pointer = slot.pointer
            self.slotSize = slot.slotSize
        } else {
            // sodium_malloc(0) is legal but returns a pointer we must not touch; keep one byte.
            guard let pointer = sodium_malloc(max(count, 1)) else { throw E(cryptoFailure: .secureAllocationFailed(bytes: count)) }
            sodium_memzero(pointer, max(count, 1))
            self.pointer = pointer
            self.slotSize = 0
        }
        self.count = count
        // On failure deinit runs and zeroes; nothing else to undo.
        try initialize(pointer.assumingMemoryBound(to: UInt8.self), count)
    }

    /// Copies `bytes` into locked memory. The caller remains responsible for its own copy.
    public convenience init(copying bytes: UnsafeRawBufferPointer) throws(CryptoError) {
        try self.init(count: bytes.count) { target in
            if let base = bytes.baseAddress, bytes.count > 0 { target.baseAddress?.copyMemory(from: base, byteCount: bytes.count) }
        }
    }

    /// Copies `bytes` into locked memory and zeroes the array's storage.
    public convenience init(consuming bytes: inout [UInt8]) throws(CryptoError) {
        try self.init(count: bytes.count) { target in
            bytes.withUnsafeBytes { source in
                if let base = source.baseAddress, source.count > 0 { target.baseAddress?.copyMemory(from: base, byteCount: source.count) }
            }
        }
        bytes.withUnsafeMutableBytes { sodium_memzero($0.baseAddress, $0.count) }
        bytes.removeAll()
    }

    /// `count` bytes from libsodium's CSPRNG, written straight into locked memory.
    public static func random(count: Int) throws(CryptoError) -> SecretBytes {
        try SecretBytes(count: count, filling: { pointer, count in randombytes_buf(pointer, count) })
    }

    deinit {
        if slotSize > 0 {
            LockedArena.shared.release(pointer, slotSize: slotSize)
        } else {
            // sodium_free zeroes the allocation before releasing it.
            sodium_free(pointer)
        }
    }

    /// Calls `body` with the bytes. Do not let the pointer escape.
    public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Calls `body` with a non-optional pointer (libsodium's parameters are non-null).
    func withBytePointer<R, E: Error>(_ body: (UnsafePointer<UInt8>, Int) throws(E) -> R) throws(E) -> R {
        try body(UnsafePointer(pointer.assumingMemoryBound(to: UInt8.self)), count)
    }

    /// Zeroes the bytes now (crypto-shred of a key still referenced elsewhere).
    func zero() {
        sodium_memzero(pointer, max(count, 1))
    }

    /// Constant-time comparison.
    public static func == (lhs: SecretBytes, rhs: SecretBytes) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return sodium_memcmp(lhs.pointer, rhs.pointer, lhs.count) == 0
    }

    public var description: String { "SecretBytes(\(count) bytes, redacted)" }
    public var debugDescription: String { description }
}
