import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// Something that is not a regular file planted at each path the library opens, creates or
/// removes: the launch (`ResumeManager.resume`) and a write (`rotate`) each end with a typed
/// answer, never hang, never wipe, and leave the planted thing as it was. Each operation runs in a
/// child process with a deadline: a hang fails the test instead of the run.
@Suite("Planted FIFOs, directories and links at every vault path")
struct PlantedFileTests {
    /// A path of the vault's (or of its key's), named for the failure message.
    struct Site: Sendable, CustomStringConvertible {
        let description: String
        /// Whether the launch reads or creates this path, so that it must answer "unavailable"
        /// (misconfigured) rather than go home.
        let launchTouches: Bool
        let path: @Sendable (VaultFiles, String) -> String
    }

    enum Kind: String, Sendable, CaseIterable { case fifo, directory, symlink }

    static let sites: [Site] = [
        Site(description: "database", launchTouches: true) { files, _ in files.database },
        Site(description: "-wal", launchTouches: true) { files, _ in files.wal },
        Site(description: "-shm", launchTouches: true) { files, _ in files.sharedMemory },
        Site(description: "-journal", launchTouches: true) { files, _ in files.journal },
        Site(description: "header", launchTouches: true) { files, _ in files.header },
        Site(description: "tombstone", launchTouches: false) { files, _ in files.tombstone },
        Site(description: "key", launchTouches: true) { _, key in key },
        Site(description: "generation record", launchTouches: false) { _, key in key + ".generation" },
        Site(description: "structure lock", launchTouches: true) { files, _ in files.structureLock },
        Site(description: "refresh lock", launchTouches: false) { files, _ in files.refreshLock },
        Site(description: "-rekey", launchTouches: true) { files, _ in files.rekeyTemporary },
        Site(description: "-creating", launchTouches: true) { files, _ in files.creating }
    ]

    /// What was planted, as `lstat` and the link's target describe it, and the bytes of the
    /// link's target: equal before and after means nothing of it changed.
    struct Fingerprint: Equatable {
        let type: mode_t
        let inode: UInt64
        let linkTarget: String?
        let targetBytes: Data?

        init?(_ path: String) {
            var info = stat()
            guard lstat(path, &info) == 0 else { return nil }
            type = info.st_mode & S_IFMT
            inode = UInt64(info.st_ino)
            linkTarget = try? FileManager.default.destinationOfSymbolicLink(atPath: path)
            targetBytes = linkTarget.flatMap { FileManager.default.contents(atPath: $0) }
        }
    }

    static func plant(_ kind: Kind, at path: String, in directory: TemporaryDirectory) throws {
        try? FileManager.default.removeItem(atPath: path)
        switch kind {
        case .fifo:
            guard mkfifo(path, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        case .directory:
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case .symlink:
            // A link to a file outside the vault's names, with bytes of its own.
            let target = directory.file("elsewhere-\(UUID().uuidString)")
            try Data("not a vault file\n".utf8).write(to: URL(fileURLWithPath: target))
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        }
    }

    /// A clear answer names what it found where a file belongs, not an engine's "disk I/O error".
    static func saysWhatWasFound(_ output: String) -> Bool {
        ["not a regular file", "symbolic link"].contains { output.contains($0) }
    }

    static func runHost(_ arguments: [String]) async throws -> (status: Int32?, output: String) {
        let host = try TestHostProcess(arguments, scratch: TemporaryDirectory("sessionvault-host"))
        let status = await host.finish(timeout: 30)
        return (status, host.output)
    }

    @Test(arguments: sites, Kind.allCases)
    func launchAndWriteAnswerTypedAndLeaveThePlantedFileAlone(_ site: Site, _ kind: Kind) async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        let planted = site.path(fixture.files, fixture.keyPath)
        try Self.plant(kind, at: planted, in: fixture.directory)
        let before = try #require(Fingerprint(planted))
        let label = "\(kind.rawValue) at \(site)"

        let resumed = try await Self.runHost(["resume", fixture.path, fixture.keyPath, "http://127.0.0.1:9/auth/v1"])
        #expect(resumed.status != nil, "\(label): the launch hung")
        #expect(!resumed.output.hasPrefix("login"), "\(label): the launch gave up the session: \(resumed.output)")
        if site.launchTouches {
            #expect(
                resumed.output.hasPrefix("unavailable") && Self.saysWhatWasFound(resumed.output),
                "\(label): expected a refusal that names what was found, got \(resumed.output)")
        } else {
            // The session was stored on the test's clock (2027), later than the host's real
            // clock: a clock behind recorded activity locks under the idle timeout; otherwise the
            // launch refreshes and the server at port 9 is not there (offline).
            #expect(["home", "offline", "unavailable", "locked"].contains { resumed.output.hasPrefix($0) }, "\(label): \(resumed.output)")
        }

        let rotated = try await Self.runHost(["rotate", fixture.path, fixture.keyPath, "r-planted"])
        #expect(rotated.status != nil, "\(label): the write hung")
        #expect(!rotated.output.contains("corrupted"), "\(label): \(rotated.output)")
        if site.launchTouches {
            #expect(
                rotated.output.hasPrefix("error:") && Self.saysWhatWasFound(rotated.output),
                "\(label): expected a refusal that names what was found, got \(rotated.output)")
        } else {
            #expect(rotated.output.hasPrefix("rotated"), "\(label): \(rotated.output)")
        }

        #expect(Fingerprint(planted) == before, "\(label): the planted file was changed or removed")
        if kind == .directory {
            #expect((try? FileManager.default.contentsOfDirectory(atPath: planted))?.isEmpty == true, "\(label): something was written into it")
        }
        for file in [fixture.path, fixture.files.header, fixture.keyPath] where file != planted {
            #expect(FileManager.default.fileExists(atPath: file), "\(label): \(file) was removed")
        }
    }

    /// The generation record is written after the commit, inside the write's structure lock:
    /// a FIFO there blocked the open(2) until a reader came, and every other process's write
    /// waited behind it.
    @Test(arguments: Kind.allCases)
    func storingTheGenerationRecordRefusesAnythingButARegularFile(_ kind: Kind) async throws {
        let directory = TemporaryDirectory()
        let provider = KeyFileProvider(path: directory.file("vault.key"))
        try Self.plant(kind, at: provider.generationRecordPath, in: directory)
        let before = try #require(Fingerprint(provider.generationRecordPath))
        let outcome = await Deadline.run(seconds: 20) { () -> String in
            do {
                try provider.storeGenerationRecord([UInt8](repeating: 7, count: 16))
                return "stored"
            } catch {
                return "\(error)"
            }
        }
        guard case .finished(let answer) = outcome else { Issue.record("\(kind): storing the record blocked"); return }
        #expect(answer != "stored", "\(kind): a record was written through a \(kind.rawValue)")
        #expect(Fingerprint(provider.generationRecordPath) == before, "\(kind): the planted file changed")
    }
}
