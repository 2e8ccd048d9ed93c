import Foundation
import SessionVaultTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Runs one workload of VaultCrashHost under the LD_PRELOAD recorder and returns its trace.
enum Recorder {
    struct Failed: Error, CustomStringConvertible {
        let description: String
    }

    /// The recorder library, compiled once per test process from Tests/CrashStates/interposer.c
    /// with the system's C compiler (SwiftPM builds no preloadable library).
    static let interposer = Task<String, any Error> {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("CrashStates/interposer.c").path
        let scratch = TemporaryDirectory("sessionvault-crash-recorder")
        let library = scratch.file("interposer.so")
        let result = try await ChildProcess.run(
            "/usr/bin/env", ["cc", "-shared", "-fPIC", "-O1", "-o", library, source, "-ldl", "-lpthread"],
            scratch: scratch.path)
        guard result.status == 0 else { throw Failed(description: "cc failed to build the recorder (\(result.status)): \(result.stderr)") }
        return library
    }

    /// The sanitizer's runtime, when this build has one (make check-asan, check-tsan). Its
    /// interceptors of write, pwrite and fsync are linked into each executable, ahead of any
    /// preloaded library, so the recorder would see only part of the calls: the explorer does
    /// not run there (its own replay check would fail for that reason, not the library's).
    static var sanitizer: String? {
        guard let program = dlopen(nil, RTLD_NOW) else { return nil }
        defer { dlclose(program) }
        if dlsym(program, "__asan_init") != nil { return "AddressSanitizer" }
        if dlsym(program, "__tsan_init") != nil { return "ThreadSanitizer" }
        return nil
    }

    /// What a recorded run gives the explorer.
    struct Recording {
        let trace: Trace
        /// The directory's files after the run, as the kernel has them (for the self-check).
        let finalFiles: Snapshot
    }

    /// Sets the workload up (untraced), snapshots the directory, runs it traced.
    static func record(_ workload: String) async throws -> Recording {
        let library = try await interposer.value
        let host = try BuiltExecutable.vaultCrashHost.required()
        let scratch = TemporaryDirectory("sessionvault-crash-\(workload)")
        let root = scratch.file("vault")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let resolved = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
        let setup = try await ChildProcess.run(host, ["workload-setup", workload, resolved], scratch: scratch.path)
        guard setup.status == 0 else { throw Failed(description: "workload-setup \(workload) exited \(setup.status): \(setup.stderr)") }
        let before = try Snapshot.take(resolved)
        let log = scratch.file("trace.log")
        var environment = ["LD_PRELOAD": library, "CRASH_STATES_DIR": resolved, "CRASH_STATES_LOG": log]
        // A sanitized build (make check-asan) wants its runtime first in the library list.
        environment["ASAN_OPTIONS"] = ((ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" }) ?? "") + "verify_asan_link_order=0"
        let run = try await ChildProcess.run(host, ["workload-run", workload, resolved], environment: environment, scratch: scratch.path)
        guard run.status == 0, run.stdout.contains("finished") else {
            throw Failed(description: "workload-run \(workload) exited \(run.status): \(run.stderr)")
        }
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: log)))
        let trace = try Trace.load(root: resolved, snapshot: before, log: bytes)
        return Recording(trace: trace, finalFiles: try Snapshot.take(resolved))
    }
}
