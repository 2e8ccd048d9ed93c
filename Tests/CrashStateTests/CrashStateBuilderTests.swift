import Testing

/// The explorer's model of a power cut, on small hand-written traces: what it may drop, what it
/// must keep. (If the builder kept everything, every workload would pass.)
@Suite("Crash-state builder: what a power cut may drop and what it must keep")
struct CrashStateBuilderTests {
    static let root = "/vault"

    static func trace(_ steps: [Trace.Step], initial: [String: [UInt8]] = [:], objects: Int) -> Trace {
        var names: [String: Int] = [:]
        var contents: [[UInt8]] = []
        for (path, bytes) in initial.sorted(by: { $0.key < $1.key }) {
            names[root + "/" + path] = contents.count
            contents.append(bytes)
        }
        return Trace(
            root: root, initialNames: names, initialContents: contents, initialDirectories: [],
            objectCount: objects, steps: steps, objectNames: [:])
    }

    /// Every distinct set of files at the end of the trace.
    static func endings(_ trace: Trace) -> [[String: [UInt8]?]] {
        CrashStateBuilder(trace: trace, seed: 1).variants(at: trace.steps.count).map(\.files)
    }

    @Test("an unsynced write may be lost or kept; after its fsync it is always there")
    func dataNeedsFsync() {
        let write: Trace.Step = .data(object: 0, .write(offset: 0, bytes: [1, 2, 3]))
        let unsynced = Self.endings(Self.trace([write], initial: ["a": []], objects: 1))
        #expect(unsynced.contains { $0["a"] == .some([]) })
        #expect(unsynced.contains { $0["a"] == .some([1, 2, 3]) })
        let synced = Self.endings(Self.trace([write, .sync(object: 0)], initial: ["a": []], objects: 1))
        #expect(!synced.isEmpty && synced.allSatisfy { $0["a"] == .some([1, 2, 3]) })
    }

    @Test("a rename is durable only after its directory's fsync, whatever the file's fsync")
    func entriesNeedDirectoryFsync() {
        let steps: [Trace.Step] = [
            .entry(.create(Self.root + "/key.tmp", object: 0)),
            .data(object: 0, .write(offset: 0, bytes: [7])),
            .sync(object: 0),
            .entry(.rename(Self.root + "/key.tmp", to: Self.root + "/key"))
        ]
        let before = Self.endings(Self.trace(steps, objects: 1))
        #expect(before.contains { $0["key"] == nil && $0["key.tmp"] == .some([7]) })
        #expect(before.contains { $0["key"] == .some([7]) && $0["key.tmp"] == nil })
        #expect(before.contains { $0.isEmpty }, "the create itself may be lost")
        let after = Self.endings(Self.trace(steps + [.directorySync(Self.root)], objects: 1))
        let expected: [String: [UInt8]?] = ["key": [7]]
        #expect(!after.isEmpty && after.allSatisfy { $0 == expected })
    }

    @Test("directory entries reach the disk in order: never a later one without an earlier one")
    func entriesInOrder() {
        let steps: [Trace.Step] = [.entry(.create(Self.root + "/first", object: 0)), .entry(.create(Self.root + "/second", object: 1))]
        let endings = Self.endings(Self.trace(steps, objects: 2))
        #expect(endings.contains { $0["first"] != nil && $0["second"] == nil })
        #expect(!endings.contains { $0["first"] == nil && $0["second"] != nil })
    }

    @Test("a write over several sectors may be torn at a sector boundary, never inside one")
    func tornWrites() {
        let bytes = [UInt8](repeating: 9, count: 2048)
        let endings = Self.endings(Self.trace([.data(object: 0, .write(offset: 0, bytes: bytes))], initial: ["a": []], objects: 1))
        let torn = endings.compactMap { $0["a"] ?? nil }.filter { $0.count == 2048 && $0 != bytes }
        #expect(!torn.isEmpty, "no torn variant of a 4-sector write")
        for file in torn {
            for sector in 0..<4 {
                let part = file[(sector * 512)..<((sector + 1) * 512)]
                #expect(part.allSatisfy { $0 == 9 } || part.allSatisfy { $0 == 0 }, "a sector was split")
            }
        }
    }
}
