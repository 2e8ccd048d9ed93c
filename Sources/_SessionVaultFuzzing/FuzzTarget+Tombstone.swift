import Foundation
import SessionVault

extension FuzzTarget {
    /// The tombstone, written to disk and read by `Tombstone.read(at:)`.
    ///
    /// What must hold: reading never throws for a regular file that exists (a tombstone that
    /// does not decode is only "no tombstone"); one that decodes, written back by the library
    /// and read again, is the same tombstone.
    public static func tombstone(_ input: [UInt8]) -> String? {
        let scratch = FuzzScratch.shared
        let path = scratch.path("fuzz.tombstone")
        guard scratch.put(input, at: path) else { return "setup: the tombstone could not be written" }
        let tombstone: Tombstone?
        do { tombstone = try Tombstone.read(at: path) } catch { return "reading an existing tombstone threw \(error)" }
        guard let tombstone else { return nil }
        _ = tombstone.detail
        let again = scratch.path("fuzz.tombstone.again")
        do { try tombstone.write(to: again) } catch { return "writing a decoded tombstone back threw \(error)" }
        let reread: Tombstone?
        do { reread = try Tombstone.read(at: again) } catch { return "reading a written tombstone threw \(error)" }
        if reread != tombstone { return "a tombstone written back reads differently" }
        return nil
    }
}
