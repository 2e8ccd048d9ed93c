import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SessionVaultTestSupport

/// The files a power cut may leave, as the crash-state explorer builds them from a `Trace`.
///
/// The model (SQLite's crash VFS, ALICE, LazyFS): a write, truncation or file creation is only
/// certain to survive once a later fsync of that file (data) or of its directory (the entry:
/// create, rename, link, unlink) has returned. Up to then it may be lost, kept, or, for a write,
/// kept in part (whole 512-byte sectors of it). Directory entries reach the disk in the order
/// they were made (a journaled file system), so a state keeps an in-order prefix of the entries
/// not yet synced; file data may reach it in any order.
///
/// At each crash point (before every fsync, after every step the workload marked done, and at
/// the end) the builder makes these variants of what was not synced: none of it; all of it (what
/// a SIGKILL leaves); all entries but no data; all data but no entries; in-order prefixes of the
/// whole (data and entries together, as ext4's data=ordered tends to write them); seeded random
/// subsets of the data with a random prefix of the entries; and torn writes (an in-order prefix,
/// then some sectors of the next write).
struct CrashStateBuilder {
    let trace: Trace
    let seed: UInt64

    /// One state: where the crash happened and which variant, the files, and a content hash.
    struct State {
        /// The number of recorded steps that happened before the power cut.
        var crashPoint: Int
        var variant: String
        /// Relative path → bytes (directories: nil).
        var files: [String: [UInt8]?]
        var hash: UInt64
        /// The always-built variants (none, all, entries only, data only) come first when a cap
        /// has to leave states out.
        var essential: Bool

        var identifier: String { String(hash, radix: 16) }
    }

    /// Which of the not-yet-durable steps a variant keeps, and a torn write if any.
    private struct Choice {
        var kept: Set<Int>
        var torn: (step: Int, sectors: Set<Int>)?
    }

    /// The crash points: every index before an fsync, after a `done` mark, and the end.
    var crashPoints: [Int] {
        var points: [Int] = []
        for (index, step) in trace.steps.enumerated() {
            switch step {
            case .sync, .directorySync: points.append(index)
            case .mark(let label) where label.hasPrefix("done "): points.append(index + 1)
            default: break
            }
        }
        points.append(trace.steps.count)
        return Array(Set(points)).sorted()
    }

    /// Every distinct state (deduplicated by content), at most `cap`: the essential variants
    /// first, the rest in a seeded order. `candidates` counts states before deduplication.
    func states(cap: Int) -> (states: [State], candidates: Int, distinct: Int) {
        var seen: Set<UInt64> = []
        var essential: [State] = []
        var others: [State] = []
        var candidates = 0
        for point in crashPoints {
            for (variant, choice, isEssential) in choices(at: point) {
                candidates += 1
                let files = materialize(point, choice)
                let hash = Self.hash(files)
                guard seen.insert(hash).inserted else { continue }
                let state = State(crashPoint: point, variant: variant, files: files, hash: hash, essential: isEssential)
                if isEssential { essential.append(state) } else { others.append(state) }
            }
        }
        var generator = SeededGenerator(seed: seed)
        others.shuffle(using: &generator)
        let distinct = essential.count + others.count
        return (Array((essential + others).prefix(max(cap, essential.count))), candidates, distinct)
    }

    /// Every variant at one crash point, not deduplicated (for the builder's own tests).
    func variants(at point: Int) -> [(variant: String, files: [String: [UInt8]?])] {
        choices(at: point).map { ($0.0, materialize(point, $0.1)) }
    }

    /// The files after every step (what the run left): compared with the real directory, it
    /// checks the recorder and the replay against each other.
    func finalFiles() -> [String: [UInt8]?] {
        materialize(trace.steps.count, Choice(kept: Set(pending(at: trace.steps.count)), torn: nil))
    }

    /// Steps before `point` that no later sync (before `point`) made durable.
    private func pending(at point: Int) -> [Int] {
        var lastFileSync: [Int: Int] = [:]
        var lastDirectorySync: [String: Int] = [:]
        for index in 0..<point {
            switch trace.steps[index] {
            case .sync(let object): lastFileSync[object] = index
            case .directorySync(let path): lastDirectorySync[path] = index
            default: break
            }
        }
        var result: [Int] = []
        for index in 0..<point {
            switch trace.steps[index] {
            case .data(let object, _):
                if (lastFileSync[object] ?? -1) < index { result.append(index) }
            case .entry(let change):
                if change.directories.contains(where: { (lastDirectorySync[$0] ?? -1) < index }) { result.append(index) }
            default: break
            }
        }
        return result
    }

    private func choices(at point: Int) -> [(String, Choice, Bool)] {
        let pending = pending(at: point)
        let entries = pending.filter { if case .entry = trace.steps[$0] { return true } else { return false } }
        let data = pending.filter { if case .data = trace.steps[$0] { return true } else { return false } }
        var result: [(String, Choice, Bool)] = [
            ("none", Choice(kept: [], torn: nil), true),
            ("all", Choice(kept: Set(pending), torn: nil), true),
            ("entries-only", Choice(kept: Set(entries), torn: nil), true),
            ("data-only", Choice(kept: Set(data), torn: nil), true)
        ]
        guard !pending.isEmpty else { return result }
        var generator = SeededGenerator(seed: seed &+ UInt64(point) &* 0x9E37_79B9_7F4A_7C15)
        // In-order prefixes: all of them when few, else a seeded sample.
        let lengths = pending.count <= 12 ? Array(1..<pending.count) : (0..<10).map { _ in Int.random(in: 1..<pending.count, using: &generator) }
        for length in Set(lengths).sorted() {
            result.append(("prefix-\(length)", Choice(kept: Set(pending.prefix(length)), torn: nil), false))
        }
        for round in 0..<6 {
            var kept = Set(data.filter { _ in Bool.random(using: &generator) })
            kept.formUnion(entries.prefix(Int.random(in: 0...entries.count, using: &generator)))
            result.append(("random-\(round)", Choice(kept: kept, torn: nil), false))
        }
        // Torn writes: some sectors of one write that spans two or more, after the writes before it.
        let torn = pending.enumerated().filter { _, step in
            if case .data(_, .write(let offset, let bytes)) = trace.steps[step] { return Self.sectors(offset, bytes.count).count > 1 }
            return false
        }
        for (position, step) in torn.shuffled(using: &generator).prefix(4) {
            guard case .data(_, .write(let offset, let bytes)) = trace.steps[step] else { continue }
            let all = Self.sectors(offset, bytes.count)
            var some = Set(all.filter { _ in Bool.random(using: &generator) })
            if some.isEmpty || some.count == all.count { some = [all[Int.random(in: 0..<all.count, using: &generator)]] }
            result.append(("torn-\(step)", Choice(kept: Set(pending.prefix(position)), torn: (step, some)), false))
        }
        return result
    }

    /// The 512-byte sectors (by index) a write covers.
    private static func sectors(_ offset: Int, _ count: Int) -> [Int] {
        guard count > 0 else { return [] }
        return Array((offset / 512)...((offset + count - 1) / 512))
    }

    /// The files of the state: every durable step before `point`, plus the chosen pending ones,
    /// applied in the order they happened. The shared-memory index (`-shm`) is left out: it is
    /// never synced and SQLite rebuilds it.
    private func materialize(_ point: Int, _ choice: Choice) -> [String: [UInt8]?] {
        let pendingSet = Set(pending(at: point))
        var names = trace.initialNames
        var directories = trace.initialDirectories
        var contents = trace.initialContents + Array(repeating: [], count: trace.objectCount - trace.initialContents.count)
        for index in 0..<point {
            let durable = !pendingSet.contains(index)
            let torn = choice.torn?.step == index ? choice.torn : nil
            guard durable || choice.kept.contains(index) || torn != nil else { continue }
            switch trace.steps[index] {
            case .data(let object, .write(let offset, let bytes)):
                var file = contents[object]
                if file.count < offset + bytes.count { file += [UInt8](repeating: 0, count: offset + bytes.count - file.count) }
                if let torn {
                    for position in 0..<bytes.count where torn.sectors.contains((offset + position) / 512) {
                        file[offset + position] = bytes[position]
                    }
                } else {
                    file.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
                }
                contents[object] = file
            case .data(let object, .truncate(let size)):
                if contents[object].count > size {
                    contents[object].removeLast(contents[object].count - size)
                } else {
                    contents[object] += [UInt8](repeating: 0, count: size - contents[object].count)
                }
            case .entry(.create(let path, let object)):
                names[path] = object
            case .entry(.rename(let from, let to)):
                if let object = names.removeValue(forKey: from) { names[to] = object }
            case .entry(.link(let from, let to)):
                if let object = names[from], names[to] == nil { names[to] = object }
            case .entry(.unlink(let path)):
                names[path] = nil
            case .entry(.makeDirectory(let path)):
                directories.insert(path)
            case .entry(.removeDirectory(let path)):
                directories.remove(path)
            case .sync, .directorySync, .mark:
                break
            }
        }
        var files: [String: [UInt8]?] = [:]
        let prefix = trace.root + "/"
        for (path, object) in names where path.hasPrefix(prefix) && !path.hasSuffix("-shm") {
            files[String(path.dropFirst(prefix.count))] = contents[object]
        }
        for path in directories where path.hasPrefix(prefix) {
            files[String(path.dropFirst(prefix.count))] = .some(nil)
        }
        return files
    }

    /// FNV-1a over the sorted names and contents: the same state has the same name in every run.
    static func hash(_ files: [String: [UInt8]?]) -> UInt64 {
        var value: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix(_ byte: UInt8) { value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        for name in files.keys.sorted() {
            for byte in name.utf8 { mix(byte) }
            mix(0)
            if let content = files[name] ?? nil {
                for byte in String(content.count).utf8 { mix(byte) }
                mix(1)
                for byte in content { mix(byte) }
            } else {
                mix(2)
            }
        }
        return value
    }

    /// Writes a state's files into `directory` (files 0600, directories 0700).
    static func write(_ files: [String: [UInt8]?], into directory: String) throws {
        for name in files.keys.sorted() where files[name]! == nil {
            try FileManager.default.createDirectory(
                atPath: directory + "/" + name, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        }
        for (name, content) in files {
            guard let content else { continue }
            let path = directory + "/" + name
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            defer { close(fd) }
            var offset = 0
            while offset < content.count {
                let n = content[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                guard n > 0 else { throw POSIXError(.EIO) }
                offset += n
            }
            fchmod(fd, 0o600)
        }
    }
}
