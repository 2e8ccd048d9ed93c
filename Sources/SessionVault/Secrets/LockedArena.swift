import CSodium
import Foundation

/// Locked memory for small secrets, handed out in fixed-size slots.
///
/// Why: `sodium_malloc` gives every allocation its own guard pages and `mlock`, which costs four
/// system calls (mmap, mprotect, mlock, munmap) and about 27 µs per secret here: a launch makes
/// seven of them (subkeys, opened tokens), a full verify two per stored session. The arena takes
/// its regions from `sodium_malloc` once (locked, guarded at both ends, never swapped) and slices
/// them into slots; a slot is zeroed the moment its secret is released and reused after. What
/// is given up: a guard page between two secrets of the same region. Secrets larger than the
/// largest slot still get a `sodium_malloc` allocation of their own. Under AddressSanitizer a
/// free slot, and the bytes of a slot past its secret's length, are poisoned (`ArenaPoisoning`):
/// what a guard page would catch, the sanitizer does.
final class LockedArena: @unchecked Sendable {
    // Sendable: every access to the free lists holds `lock`; regions are never freed.
    static let shared = LockedArena()

    /// Slot sizes: keys (32–67 bytes), short tokens, JWT access tokens, long tokens.
    static let slotSizes = [64, 256, 1024, 4096]
    /// Bytes per region; a multiple of the page size so regions fill their pages.
    private static let regionBytes = 16 * 4096

    private let lock = NSLock()
    private var freeSlots: [[UnsafeMutableRawPointer]] = Array(repeating: [], count: LockedArena.slotSizes.count)

    /// A zeroed slot of at least `count` bytes, and its size; nil when `count` is larger than
    /// any slot or no locked region can be had (the caller then uses `sodium_malloc`). Only the
    /// first `count` bytes may be touched until `release`.
    func allocate(_ count: Int) -> (pointer: UnsafeMutableRawPointer, slotSize: Int)? {
        guard let sizeClass = Self.slotSizes.firstIndex(where: { $0 >= count }) else { return nil }
        let slotSize = Self.slotSizes[sizeClass]
        lock.lock()
        defer { lock.unlock() }
        if freeSlots[sizeClass].isEmpty {
            guard let region = sodium_malloc(Self.regionBytes) else { return nil }
            sodium_memzero(region, Self.regionBytes)
            ArenaPoisoning.poison(region, count: Self.regionBytes)
            for offset in stride(from: 0, to: Self.regionBytes, by: slotSize) {
                freeSlots[sizeClass].append(region + offset)
            }
        }
        guard let pointer = freeSlots[sizeClass].popLast() else { return nil }
        ArenaPoisoning.unpoison(pointer, count: count)
        return (pointer, slotSize)
    }

    /// Zeroes the whole slot and makes it available again.
    func release(_ pointer: UnsafeMutableRawPointer, slotSize: Int) {
        // The whole slot is zeroed, past the secret's length too (poisoned under the sanitizer).
        ArenaPoisoning.unpoison(pointer, count: slotSize)
        sodium_memzero(pointer, slotSize)
        ArenaPoisoning.poison(pointer, count: slotSize)
        guard let sizeClass = Self.slotSizes.firstIndex(of: slotSize) else { return }
        lock.lock()
        freeSlots[sizeClass].append(pointer)
        lock.unlock()
    }
}
