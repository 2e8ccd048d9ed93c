/// Path arithmetic on plain strings. Foundation's `NSString.deletingLastPathComponent` and
/// `lastPathComponent` trap on a bare file name (`vault.key`) in swift-corelibs-foundation 6.3
/// on Linux, and the library calls the former on key and header paths; so the CLI never uses
/// them, and hands the library paths that always contain a slash. A path's directory comes from
/// the library's `FileIO.parentDirectory`, the one copy of that rule.
enum PathText {
    /// `vault.key` → `./vault.key`; an empty path or one with a slash is returned unchanged.
    static func withDirectory(_ path: String) -> String {
        path.isEmpty || path.contains("/") ? path : "./" + path
    }

    /// The file name part: `a/b.db` → `b.db`.
    static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// `directory/name`.
    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}
