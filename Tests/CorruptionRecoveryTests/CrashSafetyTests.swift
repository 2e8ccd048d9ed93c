import Foundation
import Testing
@testable import SessionVault

extension CorruptionRecovery {
    @Suite("Crash safety and a full disk, with a real child process")
    struct CrashSafetyTests {
        static let kills = 50

        @Test("SIGKILL at random moments while rotating: the last or the next pair, never a mix, never corrupted")
        func killedWhileRotating() async throws {
            let fixture = DamageFixture()
            do {
                let vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys)
                try await vault.store(TokenValues.hostResponse(0))
                await vault.close()
            }
            var last = 0
            var rotations = 0
            var killedWhileRotating = 0
            for round in 0..<Self.kills {
                let host = try CrashHost(["rotate-loop", fixture.path, fixture.keyPath])
                if round % 10 == 9 {
                    // Now and then a kill while the child is still starting or opening.
                    try await Task.sleep(nanoseconds: UInt64.random(in: 0...5_000_000))
                } else {
                    let ready = try #require(try await host.line(startingWith: "ready"), "round \(round): the child never opened the vault")
                    #expect(ready == "ready \(last)", "round \(round): the child read another pair than the parent saw")
                    try await Task.sleep(nanoseconds: UInt64.random(in: 5_000_000...40_000_000))
                }
                host.kill()
                let result = try await host.ended()
                #expect(result.signal == SIGKILL, "round \(round): the child ended on its own (\(result.status ?? -1)): \(result.stderr)")
                let committed = result.lines.compactMap { $0.hasPrefix("committed ") ? Int($0.dropFirst(10)) : nil }
                let lastCommitted = committed.last ?? last
                rotations += committed.count
                if !committed.isEmpty { killedWhileRotating += 1 }

                let vault: Vault
                do {
                    vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys, create: false)
                } catch {
                    Issue.record("round \(round): the vault did not open after SIGKILL: \(error)")
                    return
                }
                let refresh = TokenValues.text(try await vault.refreshToken()) ?? ""
                let access = TokenValues.text(try await vault.accessToken()) ?? ""
                let pair = Int(refresh.dropFirst(2))
                let sequence = try #require(pair, "round \(round): unexpected refresh token form")
                #expect(refresh == "R-\(sequence)" && access == "A-\(sequence)", "round \(round): a mixed pair")
                // A rotate whose commit became durable just before the kill has not been printed.
                #expect(
                    sequence == lastCommitted || sequence == lastCommitted + 1,
                    "round \(round): pair \(sequence) after committed \(lastCommitted)")
                #expect(try await vault.currentSession()?.tokenVersion == Int64(sequence) + 1)
                #expect(try await vault.verify().intact, "round \(round): damage after a kill")
                await vault.close()
                last = sequence
            }
            #expect(killedWhileRotating > 0, "no kill landed while the child was rotating")
            #expect(rotations >= killedWhileRotating)
            try await fixture.capture()
            try await RecoveryCheck.expectCleanRecovery(fixture, from: CorruptionReason(.damagedWAL, "end of the kill loop"))
        }

        @Test("a write that cannot grow the log (RLIMIT_FSIZE) during rotate: a typed error, the old session readable")
        func diskFullDuringRotate() async throws {
            let fixture = DamageFixture()
            do {
                let vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys)
                try await vault.store(TokenValues.hostResponse(0))
                await vault.close()
            }
            let host = try CrashHost(["rotate-with-fsize-limit", fixture.path, fixture.keyPath, "8192"])
            let result = try await host.ended()
            #expect(result.status == 0 && result.signal == nil, "\(result.stderr)")
            let failure = try #require(result.lines.first { $0.hasPrefix("rotate-failed ") }, "the rotate went through: \(result.lines)")
            // EFBIG surfaces as SQLITE_IOERR_WRITE with errno EFBIG, ENOSPC as SQLITE_FULL: both
            // are reported as storageFull, never as corruption.
            #expect(failure == "rotate-failed storageFull 0", "\(failure)")
            #expect(result.lines.contains("still 0"), "the failing process still reads the old pair: \(result.lines)")
            #expect(result.lines.contains("reopened 0"), "a fresh open in that process reads the old pair: \(result.lines)")

            let vault = try Vault.open(at: fixture.path, keyProvider: fixture.keys, create: false)
            #expect(TokenValues.text(try await vault.refreshToken()) == "R-0")
            #expect(TokenValues.text(try await vault.accessToken()) == "A-0")
            #expect(try await vault.verify().intact)
            // With space again, the same rotate goes through.
            try await vault.rotate(TokenValues.hostResponse(1))
            #expect(TokenValues.text(try await vault.refreshToken()) == "R-1")
            await vault.close()
            try await fixture.capture()
            try await RecoveryCheck.expectCleanRecovery(fixture, from: CorruptionReason(.truncated, "end of the disk-full test"))
        }
    }
}
