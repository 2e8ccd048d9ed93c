/// What a write-ahead log file holds, read from its bytes alone (no key: SQLite's frame headers
/// are not encrypted by SQLCipher, only the pages after them).
///
/// A frame counts when its salts match the log header's and the running checksum (SQLite's
/// `walChecksumBytes`) holds up to it; the first frame that fails ends the log, as it does for
/// SQLite's own recovery. Frames after the last commit frame belong to an unfinished transaction.
struct WALSummary: Equatable {
    /// The page size the log header records.
    let pageSize: Int
    /// Valid frames (salts and checksums hold).
    let frames: Int
    /// Valid frames up to and including the last commit frame: what a reader would apply.
    let committedFrames: Int
    /// Distinct pages among the committed frames.
    let committedPages: Int
    /// The file's size, to compare with what the frames account for.
    let fileSize: Int

    private static let headerSize = 32
    private static let frameHeaderSize = 24

    /// Nil when `bytes` is not a write-ahead log (too short, wrong magic); an empty log has 0 frames.
    init?(_ bytes: [UInt8]) {
        fileSize = bytes.count
        guard bytes.count >= Self.headerSize else {
            if bytes.isEmpty {
                pageSize = 0; frames = 0; committedFrames = 0; committedPages = 0
                return
            }
            return nil
        }
        let magic = Self.bigEndian(bytes, 0)
        guard magic == 0x377F_0682 || magic == 0x377F_0683 else { return nil }
        // The magic's low bit says in which byte order the checksums were computed.
        let bigEndianSums = magic & 1 == 1
        let size = Int(Self.bigEndian(bytes, 8))
        pageSize = size == 1 ? 65_536 : size
        let salts = (Self.bigEndian(bytes, 16), Self.bigEndian(bytes, 20))
        var sums = Self.checksum(bytes[0..<24], bigEndian: bigEndianSums, seed: (0, 0))
        guard sums == (Self.bigEndian(bytes, 24), Self.bigEndian(bytes, 28)), pageSize >= 512 else {
            frames = 0; committedFrames = 0; committedPages = 0
            return
        }
        var offset = Self.headerSize, valid = 0, committed = 0
        var pages: [UInt32] = [], committedPageSet = Set<UInt32>()
        let frameSize = Self.frameHeaderSize + pageSize
        while offset + frameSize <= bytes.count {
            guard (Self.bigEndian(bytes, offset + 8), Self.bigEndian(bytes, offset + 12)) == salts else { break }
            sums = Self.checksum(bytes[offset..<(offset + 8)], bigEndian: bigEndianSums, seed: sums)
            sums = Self.checksum(bytes[(offset + 24)..<(offset + frameSize)], bigEndian: bigEndianSums, seed: sums)
            guard sums == (Self.bigEndian(bytes, offset + 16), Self.bigEndian(bytes, offset + 20)) else { break }
            valid += 1
            pages.append(Self.bigEndian(bytes, offset))
            if Self.bigEndian(bytes, offset + 4) != 0 {
                committed = valid
                committedPageSet.formUnion(pages)
                pages.removeAll()
            }
            offset += frameSize
        }
        frames = valid
        committedFrames = committed
        committedPages = committedPageSet.count
    }

    /// SQLite's log checksum: two 32-bit sums over 32-bit words, each sum feeding the other.
    private static func checksum(_ bytes: ArraySlice<UInt8>, bigEndian: Bool, seed: (UInt32, UInt32)) -> (UInt32, UInt32) {
        var (s0, s1) = seed
        var index = bytes.startIndex
        while index + 8 <= bytes.endIndex {
            let first = word(bytes, index, bigEndian), second = word(bytes, index + 4, bigEndian)
            s0 = s0 &+ first &+ s1
            s1 = s1 &+ second &+ s0
            index += 8
        }
        return (s0, s1)
    }

    private static func word(_ bytes: ArraySlice<UInt8>, _ at: Int, _ bigEndian: Bool) -> UInt32 {
        let b = (UInt32(bytes[at]), UInt32(bytes[at + 1]), UInt32(bytes[at + 2]), UInt32(bytes[at + 3]))
        return bigEndian ? b.0 << 24 | b.1 << 16 | b.2 << 8 | b.3 : b.3 << 24 | b.2 << 16 | b.1 << 8 | b.0
    }

    private static func bigEndian(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        word(bytes[...], at, true)
    }
}
