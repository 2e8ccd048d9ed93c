import Foundation
import SessionVault

extension FuzzTarget {
    /// The header file, written to disk and read by `HeaderFile.read(at:)` as an open reads it,
    /// then checked against the reference key as an open checks it.
    ///
    /// What must hold: a header comes back only from a file of the header's size; a file
    /// without our magic is `misconfigured`, never `corrupted` (a foreign file is not ours to
    /// wipe); what `read` returns is what `VaultHeader.decode` makes of the same bytes; a
    /// header that is `authentic` under the reference key, written back in its own slot, gives
    /// the same slot bytes (the tag covers every field the open uses).
    public static func header(_ input: [UInt8]) -> String? {
        let scratch = FuzzScratch.shared
        let path = scratch.path("fuzz.header")
        guard scratch.put(input, at: path) else { return "setup: the header could not be written" }
        let header: VaultHeader?
        do {
            header = try HeaderFile.read(at: path)
        } catch {
            if case .corrupted = error, !VaultHeader.carriesMagic(input) { return "a file without our magic was called a damaged header" }
            return nil
        }
        guard let header else { return "an existing header file read as absent" }
        guard input.count == VaultHeader.fileSize else { return "a header came from a file of \(input.count) bytes" }
        guard VaultHeader.decode(input) == header else { return "read(at:) and decode disagree" }
        guard let keys = referenceKeys, header.authenticity(with: keys) == .authentic else { return nil }
        let slot = header.encodedSlot(signedWith: keys)
        // Either slot: decode does not tie a sequence number to a slot's position.
        if Array(input[0..<VaultHeader.slotSize]) != slot && Array(input[VaultHeader.slotSize...]) != slot {
            return "an authentic header's slot does not re-encode to its own bytes"
        }
        return nil
    }
}
