#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// AddressSanitizer's manual poisoning for the `LockedArena`, when the process runs with the
/// sanitizer (`make check-asan`), and nothing at all otherwise.
///
/// Why: the arena slices regions it takes from `sodium_malloc` into slots. To AddressSanitizer a
/// region is one block of memory it did not allocate, so a read past a secret's end into the
/// rest of its slot or the next one, or a use of a slot after its secret was released, goes
/// unseen. Poisoned, a free slot and the bytes of a slot past its secret's length are reported
/// like a heap overflow or a use after free. The two functions exist only in a process that has
/// the sanitizer's runtime, so they are looked up at run time (`dlsym`), once; without them every
/// call here does nothing.
enum ArenaPoisoning {
    private typealias RegionFunction = @convention(c) (UnsafeRawPointer?, Int) -> Void

    /// The runtime's `__asan_poison_memory_region` and `__asan_unpoison_memory_region` as
    /// addresses (`Int`, so the constant is plainly `Sendable`), or nil without the sanitizer.
    private static let addresses: (poison: Int, unpoison: Int)? = {
        guard let poison = lookUp("__asan_poison_memory_region"),
            let unpoison = lookUp("__asan_unpoison_memory_region")
        else { return nil }
        return (Int(bitPattern: poison), Int(bitPattern: unpoison))
    }()

    /// Whether the sanitizer's runtime is in this process.
    static var isActive: Bool { addresses != nil }

    /// Marks `count` bytes at `pointer` as not to be touched.
    static func poison(_ pointer: UnsafeRawPointer, count: Int) {
        guard let address = addresses?.poison else { return }
        call(address, pointer, count)
    }

    /// Marks `count` bytes at `pointer` as usable again.
    static func unpoison(_ pointer: UnsafeRawPointer, count: Int) {
        guard let address = addresses?.unpoison else { return }
        call(address, pointer, count)
    }

    private static func call(_ address: Int, _ pointer: UnsafeRawPointer, _ count: Int) {
        guard let raw = UnsafeRawPointer(bitPattern: address) else { return }
        unsafeBitCast(raw, to: RegionFunction.self)(pointer, count)
    }

    private static func lookUp(_ name: String) -> UnsafeMutableRawPointer? {
        #if canImport(Darwin)
        // RTLD_DEFAULT, a macro Swift does not import: every image of the process.
        return dlsym(UnsafeMutableRawPointer(bitPattern: -2), name)
        #else
        // RTLD_DEFAULT is the null handle here.
        return dlsym(nil, name)
        #endif
    }
}
