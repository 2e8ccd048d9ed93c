// A child process for the corruption-recovery suite's crash and disk-full tests.
//
//   VaultCrashHost rotate-loop <db> <keyfile>
//       Opens an existing vault whose tokens are the pair R-<n> / A-<n>, prints "ready <n>", then
//       rotates to R-<n+1> / A-<n+1>, R-<n+2> / A-<n+2>, ... forever, printing "committed <k>"
//       after each rotate returns (the commit is durable by then). The parent kills it with
//       SIGKILL at a random moment and checks the pair the vault holds afterwards.
//
//   VaultCrashHost rotate-with-fsize-limit <db> <keyfile> <bytes>
//       Opens the vault, prints "ready <n>", lowers RLIMIT_FSIZE to <bytes> (SIGXFSZ ignored, so
//       an oversized write fails with EFBIG instead of killing the process), tries one rotate,
//       and prints "rotate-failed <error kind> <code>" (or "rotated <k>" if it went through),
//       then "still <k>" for the pair the same vault reads afterwards and "reopened <k>" for
//       the pair a second, freshly opened vault reads.
//
//   VaultCrashHost workload-setup <workload> <directory>
//   VaultCrashHost workload-run <workload> <directory>
//       The crash-state explorer's workloads (see CrashWorkload): the setup brings the directory
//       to the run's starting state; the run, traced by the explorer's recorder, writes its marks
//       into the file named by CRASH_STATES_LOG and prints "finished" when every step returned.
//
//   VaultCrashHost open-with-fsize-limit <db> <keyfile> <bytes>
//       Lowers RLIMIT_FSIZE to <bytes> (as above), opens the vault (create: false), prints
//       "opened" or "open-failed <error kind> <code>".
//
//   VaultCrashHost open-killed-at <db> <keyfile> <crash point> <n>
//       Opens the vault, stopping the n-th time the CrashPoint is reached: prints "ready <point>
//       <n>" and waits for the parent's SIGKILL ("passed <count>" when the open never got there).
//
//   VaultCrashHost recover-killed <db> <keyfile> <step>
//       Opens the vault (it must be corrupted) and runs the library's recovery wipe with the
//       reason the open gave, SIGKILLing itself right after the wipe's <step>-th step (1-based;
//       inside the key's destruction too), after printing "killing after <step name>". Prints
//       "finished <steps>" when the wipe has fewer steps than that.
//
// Only sequence numbers are printed, never a token: the pair for <k> is derived from <k>.
// Exit status: 0 done, 2 usage, 3 an unexpected error (its description on stderr).

import Foundation
import SessionVault
#if canImport(Glibc)
import Glibc
#elseif canImport(Android)
import Android
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one line to stdout at once (no buffering: the parent may SIGKILL at any moment).
func emit(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes[offset...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        if written <= 0 { return }
        offset += written
    }
}

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(status)
}

/// The sequence number of the pair the vault holds; a pair whose halves differ is reported as
/// the error it is.
func currentSequence(_ vault: Vault) async throws -> Int {
    guard let refresh = try await vault.refreshToken(), let access = try await vault.accessToken() else {
        fail("the vault holds no token pair", status: 3)
    }
    let refreshText = refresh.withRevealedBytes { String(decoding: $0, as: UTF8.self) }
    let accessText = access.withRevealedBytes { String(decoding: $0, as: UTF8.self) }
    guard refreshText.hasPrefix("R-"), accessText.hasPrefix("A-"),
        let sequence = Int(refreshText.dropFirst(2)), Int(accessText.dropFirst(2).prefix { $0 != "." }) == sequence
    else {
        fail("the vault holds a mixed or unknown token pair", status: 3)
    }
    return sequence
}

/// The rotate response for pair `sequence`; `padding` makes the access token longer (more pages).
func response(_ sequence: Int, padding: Int = 0) throws -> TokenResponse {
    let access = "A-\(sequence)" + (padding > 0 ? "." + String(repeating: "x", count: padding) : "")
    return TokenResponse(accessToken: try Token(access), expiresIn: 3600, refreshToken: try Token("R-\(sequence)"), identity: nil)
}

/// setrlimit(RLIMIT_FSIZE), keeping the hard limit.
func lowerFileSizeLimit(to bytes: UInt64) -> Bool {
    #if os(Linux)
    let resource = __rlimit_resource_t(RLIMIT_FSIZE.rawValue)
    #elseif os(Android)
    // Bionic takes a plain int.
    let resource = Int32(RLIMIT_FSIZE)
    #else
    let resource = RLIMIT_FSIZE
    #endif
    var current = rlimit()
    getrlimit(resource, &current)
    var lowered = rlimit(rlim_cur: rlim_t(bytes), rlim_max: current.rlim_max)
    return setrlimit(resource, &lowered) == 0
}

/// How many times an armed crash point was reached (the handler runs on the vault's threads).
final class ReachedCounter: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = 0
    var count: Int { lock.withLock { value } }
    func increment() -> Int {
        lock.withLock {
            value += 1; return value
        }
    }
}

func describe(_ error: any Error) -> String {
    guard let error = error as? VaultError else { return "other 0" }
    switch error {
    case .storageFull: return "storageFull 0"
    case .database: return "database 0"
    case .io(let io): return "io \(io.errno)"
    case .corrupted(let reason): return "corrupted \(reason.kind.rawValue)"
    case .unavailable: return "unavailable 0"
    case .misconfigured: return "misconfigured 0"
    default: return "other 0"
    }
}

let arguments = CommandLine.arguments
if arguments.count == 4, arguments[1].hasPrefix("workload-") {
    await runWorkload(arguments)
    exit(0)
}
guard arguments.count >= 4 else {
    fail("usage: VaultCrashHost rotate-loop <db> <keyfile> | rotate-with-fsize-limit <db> <keyfile> <bytes>", status: 2)
}
let keys = KeyFileProvider(path: arguments[3])

// The command runs in a function, not in top-level code: in top-level async code this
// toolchain (Swift 6.3.1) left a temporary string unreleased at exit, which
// LeakSanitizer reports (make check-asan); inside a function it is released. The
// arguments come in as parameters (the top-level globals belong to the main actor).
func runCommand(_ arguments: [String], keys: KeyFileProvider) async {
    let databasePath = arguments[2]
    do {
        switch arguments[1] {
        case "rotate-loop":
            let vault = try Vault.open(at: databasePath, keyProvider: keys, create: false)
            var sequence = try await currentSequence(vault)
            emit("ready \(sequence)")
            while true {
                sequence += 1
                try await vault.rotate(response(sequence))
                emit("committed \(sequence)")
            }

        case "rotate-with-fsize-limit":
            guard arguments.count == 5, let limit = UInt64(arguments[4]) else { fail("bytes must be a number", status: 2) }
            let vault = try Vault.open(at: databasePath, keyProvider: keys, create: false)
            let sequence = try await currentSequence(vault)
            emit("ready \(sequence)")
            // Without this, crossing the limit kills the process with SIGXFSZ; ignored, the write
            // fails with EFBIG, which is what a full disk (ENOSPC) looks like to SQLite too.
            signal(SIGXFSZ, SIG_IGN)
            guard lowerFileSizeLimit(to: limit) else { fail("setrlimit failed (errno \(errno))", status: 3) }
            do {
                // A long access token spreads the row over overflow pages: the commit needs many
                // more bytes of log than the limit leaves.
                try await vault.rotate(response(sequence + 1, padding: 32_768))
                emit("rotated \(sequence + 1)")
            } catch {
                emit("rotate-failed \(describe(error))")
            }
            emit("still \(try await currentSequence(vault))")
            let second = try Vault.open(at: databasePath, keyProvider: keys, create: false)
            emit("reopened \(try await currentSequence(second))")
            await second.close()
            await vault.close()

        case "open-with-fsize-limit":
            guard arguments.count == 5, let limit = UInt64(arguments[4]) else { fail("bytes must be a number", status: 2) }
            signal(SIGXFSZ, SIG_IGN)
            guard lowerFileSizeLimit(to: limit) else { fail("setrlimit failed (errno \(errno))", status: 3) }
            do {
                let vault = try Vault.open(at: databasePath, keyProvider: keys, create: false)
                emit("opened")
                await vault.close()
            } catch {
                emit("open-failed \(describe(error))")
            }

        case "open-killed-at":
            guard arguments.count == 6, let point = CrashPoint(rawValue: arguments[4]), let occurrence = Int(arguments[5]), occurrence > 0 else {
                fail("open-killed-at needs a crash point and an occurrence", status: 2)
            }
            let counter = ReachedCounter()
            CrashPoint.arm { reached in
                guard reached == point, counter.increment() == occurrence else { return }
                emit("ready \(reached.rawValue) \(occurrence)")
                // Stopped here until the test's SIGKILL: the files stay as the point left them.
                while true { pause() }
            }
            let vault = try Vault.open(at: databasePath, keyProvider: keys, create: false)
            emit("passed \(counter.count)")
            await vault.close()

        case "recover-killed":
            guard arguments.count == 5, let stop = Int(arguments[4]), stop > 0 else { fail("step must be a positive number", status: 2) }
            let reason: CorruptionReason
            do {
                _ = try Vault.open(at: databasePath, keyProvider: keys, create: false)
                fail("the vault opened: nothing to recover", status: 3)
            } catch {
                guard case .corrupted(let found) = error else { throw error }
                reason = found
            }
            var done = 0
            try Vault.recover(at: databasePath, keyProvider: keys, reason: reason, diagnosed: reason.diagnosed, now: Date()) { step in
                done += 1
                guard done == stop else { return }
                emit("killing after \(step)")
                kill(getpid(), SIGKILL)
                while true { pause() }
            }
            emit("finished \(done)")

        default:
            fail("unknown command \(arguments[1])", status: 2)
        }
    } catch {
        fail("VaultCrashHost: \(error)", status: 3)
    }
}

await runCommand(arguments, keys: keys)

func runWorkload(_ arguments: [String]) async {
    guard let workload = CrashWorkload(rawValue: arguments[2]) else { fail("unknown workload \(arguments[2])", status: 2) }
    let files = CrashWorkload.Files(directory: arguments[3])
    do {
        switch arguments[1] {
        case "workload-setup":
            try await workload.setUp(files)
        case "workload-run":
            guard let log = ProcessInfo.processInfo.environment["CRASH_STATES_LOG"] else { fail("CRASH_STATES_LOG is not set", status: 2) }
            try await workload.run(files, marks: try MarkLog(path: log))
        default:
            fail("unknown command \(arguments[1])", status: 2)
        }
    } catch {
        fail("VaultCrashHost \(arguments[1]) \(arguments[2]): \(error)", status: 3)
    }
    emit("finished")
}
