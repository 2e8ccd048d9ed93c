import Foundation

/// A recorded workload, as the explorer replays it: the directory's files before the run, and
/// every durability-relevant call of the run in order (Tests/CrashStates/interposer.c writes
/// the log), with file identities resolved from inode numbers to objects of the replay.
struct Trace {
    /// A change to a file's bytes.
    enum DataChange {
        case write(offset: Int, bytes: [UInt8])
        case truncate(size: Int)
    }

    /// A change to a directory's entries (paths are absolute).
    enum EntryChange {
        case create(String, object: Int)
        case rename(String, to: String)
        case link(String, to: String)
        case unlink(String)
        case makeDirectory(String)
        case removeDirectory(String)

        /// The directories whose sync makes this change durable.
        var directories: [String] {
            switch self {
            case .create(let path, _), .unlink(let path), .makeDirectory(let path), .removeDirectory(let path):
                return [Trace.parent(path)]
            case .rename(let from, let to), .link(let from, let to):
                return Array(Set([Trace.parent(from), Trace.parent(to)]))
            }
        }
    }

    enum Step {
        case data(object: Int, DataChange)
        case sync(object: Int)
        case directorySync(String)
        case entry(EntryChange)
        /// A mark of the workload: `begin <k> <name>` or `done <k> <observation>`.
        case mark(String)
    }

    /// The directory the run worked in (absolute, symbolic links resolved).
    let root: String
    /// Files before the run: path → object; objects 0..<initialContents.count are these files.
    let initialNames: [String: Int]
    let initialContents: [[UInt8]]
    let initialDirectories: Set<String>
    /// Every object the replay knows (initial files, then files created by the run).
    let objectCount: Int
    let steps: [Step]
    /// The first name each object had (for messages).
    let objectNames: [Int: String]

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    /// Snapshots `root` (regular files and directories below it) and parses the log of the run
    /// that followed.
    static func load(root: String, snapshot: Snapshot, log: [UInt8]) throws -> Trace {
        var inodes: [UInt64: Int] = [:]
        for (index, inode) in snapshot.inodes.enumerated() { inodes[inode] = index }
        var objectCount = snapshot.contents.count
        var objectNames: [Int: String] = [:]
        for (index, path) in snapshot.paths.enumerated() { objectNames[index] = path }
        var steps: [Step] = []
        var position = 0
        while position < log.count {
            guard let newline = log[position...].firstIndex(of: 10) else { throw Malformed(description: "log ends inside a record header") }
            let head = String(decoding: log[position..<newline], as: UTF8.self)
            let fields = head.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 5, let inode = UInt64(fields[1]), let number = Int64(fields[2]), let length = Int(fields[3]),
                newline + 1 + length <= log.count
            else {
                throw Malformed(description: "bad record header \"\(head)\"")
            }
            let payload = Array(log[(newline + 1)..<(newline + 1 + length)])
            position = newline + 1 + length
            let path = fields[4]
            func object() throws -> Int {
                guard let object = inodes[inode] else { throw Malformed(description: "\(fields[0]) on \(path): inode \(inode) was never seen created") }
                return object
            }
            switch fields[0] {
            case "create":
                inodes[inode] = objectCount
                objectNames[objectCount] = path
                steps.append(.entry(.create(path, object: objectCount)))
                objectCount += 1
            case "write": steps.append(.data(object: try object(), .write(offset: Int(number), bytes: payload)))
            case "trunc": steps.append(.data(object: try object(), .truncate(size: Int(number))))
            case "sync": steps.append(.sync(object: try object()))
            case "dsync": steps.append(.directorySync(path))
            case "rename": steps.append(.entry(.rename(path, to: String(decoding: payload, as: UTF8.self))))
            case "link": steps.append(.entry(.link(path, to: String(decoding: payload, as: UTF8.self))))
            case "unlink": steps.append(.entry(.unlink(path)))
            case "mkdir": steps.append(.entry(.makeDirectory(path)))
            case "rmdir": steps.append(.entry(.removeDirectory(path)))
            case "mark": steps.append(.mark(String(decoding: payload, as: UTF8.self)))
            default: throw Malformed(description: "unknown operation \(fields[0])")
            }
        }
        var names: [String: Int] = [:]
        for (index, path) in snapshot.paths.enumerated() { names[path] = index }
        return Trace(
            root: root, initialNames: names, initialContents: snapshot.contents, initialDirectories: snapshot.directories,
            objectCount: objectCount, steps: steps, objectNames: objectNames)
    }

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }

    /// One line describing a step (no file contents).
    func describe(_ index: Int) -> String {
        guard index >= 0, index < steps.count else { return "the start" }
        func name(_ path: String) -> String { path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path }
        func file(_ object: Int) -> String { "\(objectNames[object].map(name) ?? "?") (#\(object))" }
        switch steps[index] {
        case .data(let object, .write(let offset, let bytes)): return "write \(bytes.count) bytes at \(offset) to \(file(object))"
        case .data(let object, .truncate(let size)): return "truncate \(file(object)) to \(size)"
        case .sync(let object): return "fsync \(file(object))"
        case .directorySync(let path): return "fsync directory \(name(path))"
        case .entry(.create(let path, let object)): return "create \(name(path)) (#\(object))"
        case .entry(.rename(let from, let to)): return "rename \(name(from)) -> \(name(to))"
        case .entry(.link(let from, let to)): return "link \(name(from)) -> \(name(to))"
        case .entry(.unlink(let path)): return "unlink \(name(path))"
        case .entry(.makeDirectory(let path)): return "mkdir \(name(path))"
        case .entry(.removeDirectory(let path)): return "rmdir \(name(path))"
        case .mark(let label): return "mark \"\(label)\""
        }
    }
}

/// The files of a directory: what a workload starts from.
struct Snapshot {
    var paths: [String] = []
    var inodes: [UInt64] = []
    var contents: [[UInt8]] = []
    var directories: Set<String> = []

    /// Reads every regular file and directory below `root` (absolute paths).
    static func take(_ root: String) throws -> Snapshot {
        var snapshot = Snapshot()
        func walk(_ directory: String) throws {
            for name in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() {
                let path = directory + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                if (info.st_mode & S_IFMT) == S_IFDIR {
                    snapshot.directories.insert(path)
                    try walk(path)
                } else if (info.st_mode & S_IFMT) == S_IFREG {
                    snapshot.paths.append(path)
                    snapshot.inodes.append(UInt64(info.st_ino))
                    snapshot.contents.append(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
                }
            }
        }
        try walk(root)
        return snapshot
    }
}
