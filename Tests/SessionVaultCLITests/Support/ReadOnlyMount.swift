import Foundation
import SessionVaultTestSupport

/// A directory made read-only for real: a read-only bind mount of it at a second path. Tests run
/// as root, where file modes do not bind, so `chmod` alone would prove nothing; when mounting is
/// not permitted (not root, no CAP_SYS_ADMIN) the modes are dropped to 0555/0444 instead and
/// `isMount` says so.
struct ReadOnlyMount {
    /// Where the read-only view is.
    let path: String
    let isMount: Bool
    private let source: String
    private let mountPoint: TemporaryDirectory

    static func make(of source: String) async throws -> ReadOnlyMount {
        let point = TemporaryDirectory("sessionvault-ro")
        if let mount = CLI.tool("mount") {
            let bind = try await CLI.spawn(mount, ["--bind", source, point.path])
            if bind.status == 0 {
                let remount = try await CLI.spawn(mount, ["-o", "remount,ro,bind", point.path])
                if remount.status == 0 { return ReadOnlyMount(path: point.path, isMount: true, source: source, mountPoint: point) }
                _ = try await CLI.spawn(CLI.tool("umount") ?? "/bin/umount", [point.path])
            }
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: source) {
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: source + "/" + name)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: source)
        return ReadOnlyMount(path: source, isMount: false, source: source, mountPoint: point)
    }

    /// Whether a write into the view fails (it does on the mount, even for root).
    var refusesWrites: Bool { !FileManager.default.createFile(atPath: path + "/probe", contents: Data()) }

    func remove() async throws {
        if isMount {
            _ = try await CLI.spawn(CLI.tool("umount") ?? "/bin/umount", [mountPoint.path])
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: source)
        }
    }
}
