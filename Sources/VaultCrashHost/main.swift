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
          let sequence = Int(refreshText.dropFirst(2)), Int(accessText.dropFirst(2).prefix { $0 != "." }) == sequence else {
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
    #else
    let resource = RLIMIT_FSIZE
    #endif
    var current = rlimit()
    getrlimit(resource, &current)
    var lowered = rlimit(rlim_cur: rlim_t(bytes), rlim_max: current.rlim_max)
    return setrlimit(resource, &lowered) == 0
}

func describe(_ error: any Error) -> String {
    guard let error = error as? VaultError else { return "other 0" }
    switch error {
    case .storageFull: return "storageFull 0"
    case .database(let sqlite): return "database \(sqlite.extendedCode.rawValue)"
    case .io(let io): return "io \(io.errno)"
    case .corrupted(let reason): return "corrupted \(reason.kind.rawValue)"
    default: return "other 0"
    }
}

let arguments = CommandLine.arguments
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
