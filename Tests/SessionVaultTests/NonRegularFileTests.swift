import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// A FIFO where a vault file belongs is refused at once with a typed error: a plain open of a
/// FIFO waits for a writer forever, which hung every reader. Each check runs in a child process
/// with a deadline, so if the hang comes back the test fails instead of hanging the run.
@Suite("Non-regular files: refused without blocking")
struct NonRegularFileTests {
    /// A signed-in vault whose file `name` (a path in its directory) is replaced by a FIFO.
    static func vault(withFIFOAt replace: (TestVault) -> String) async throws -> TestVault {
        let fixture = TestVault()
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        let path = replace(fixture)
        try? FileManager.default.removeItem(atPath: path)
        #expect(mkfifo(path, 0o600) == 0)
        return fixture
    }

    static func runHost(_ arguments: [String], _ fixture: TestVault) async throws -> (status: Int32?, output: String) {
        let host = try TestHostProcess(arguments, scratch: TemporaryDirectory("sessionvault-host"))
        let status = await host.finish(timeout: 30)
        return (status, host.output)
    }

    @Test func aFIFOAsTheHeaderIsATypedErrorForOpenAndResume() async throws {
        let fixture = try await Self.vault { $0.files.header }
        let opened = try await Self.runHost(["open", fixture.path, fixture.keyPath], fixture)
        #expect(opened.status == 0, "open did not return (hung or crashed): \(opened.output)")
        #expect(opened.output.contains("is a FIFO, not a regular file"), "\(opened.output)")
        let resumed = try await Self.runHost(["resume", fixture.path, fixture.keyPath, "http://127.0.0.1:9/auth/v1"], fixture)
        #expect(resumed.status == 0, "resume did not return: \(resumed.output)")
        #expect(resumed.output.hasPrefix("unavailable") && resumed.output.contains("FIFO"), "\(resumed.output)")
        #expect(FileManager.default.fileExists(atPath: fixture.path), "nothing wiped")
    }

    @Test func aFIFOAsTheKeyFileIsATypedError() async throws {
        let fixture = try await Self.vault { $0.keyPath }
        let opened = try await Self.runHost(["open", fixture.path, fixture.keyPath], fixture)
        #expect(opened.status == 0, "open did not return: \(opened.output)")
        #expect(opened.output.contains("is not a regular file"), "\(opened.output)")
        #expect(FileManager.default.fileExists(atPath: fixture.path), "nothing wiped")
    }

    @Test func aFIFOAsTheTombstoneIsATypedErrorAndDoesNotBlockACreate() async throws {
        let fixture = TestVault()
        #expect(mkfifo(fixture.files.tombstone, 0o600) == 0)
        let outcome = await Deadline.run(seconds: 30) { () -> String in
            do {
                _ = try Vault.readTombstone(at: fixture.path)
                return "read"
            } catch {
                return "\(error)"
            }
        }
        guard case .finished(let description) = outcome else { Issue.record("reading the tombstone blocked"); return }
        #expect(description.contains("is a FIFO, not a regular file"), "\(description)")
        #expect(Vault.tombstone(at: fixture.path) == nil)
        // The tombstone only explains a past wipe: a new vault is still created beside it.
        let stored = try await Self.runHost(["store", fixture.path, fixture.keyPath, "r-1"], fixture)
        #expect(stored.status == 0, "store did not return: \(stored.output)")
        #expect(stored.output.hasPrefix("stored"), "\(stored.output)")
    }

    /// A FIFO or a symbolic link where the database belongs read as a truncated file, and the
    /// resume's recovery deleted it: now it is an error, and nothing is removed.
    @Test func aFIFOOrALinkAsTheDatabaseIsRefusedNotWiped() async throws {
        for kind in ["fifo", "link"] {
            let fixture = try await Self.vault { $0.path }
            if kind == "link" {
                try FileManager.default.removeItem(atPath: fixture.path)
                try FileManager.default.createSymbolicLink(atPath: fixture.path, withDestinationPath: fixture.directory.file("elsewhere.db"))
            }
            let resumed = try await Self.runHost(["resume", fixture.path, fixture.keyPath, "http://127.0.0.1:9/auth/v1"], fixture)
            #expect(resumed.status == 0, "\(kind): resume did not return: \(resumed.output)")
            let says = kind == "fifo" ? "not a regular file" : "symbolic link"
            #expect(resumed.output.hasPrefix("unavailable") && resumed.output.contains(says), "\(kind): \(resumed.output)")
            var info = stat()
            #expect(lstat(fixture.path, &info) == 0, "\(kind): the path was removed")
            #expect(
                FileManager.default.fileExists(atPath: fixture.files.header) && FileManager.default.fileExists(atPath: fixture.keyPath),
                "\(kind): nothing wiped")
        }
    }

    @Test func fileIORefusesEveryKindOfNonRegularFile() throws {
        let directory = TemporaryDirectory()
        let fifo = directory.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        for (path, kind) in [(fifo, "FIFO"), (directory.path, "directory"), ("/dev/null", "character device")] {
            #expect(throws: FileIOError.self) { try FileIO.read(path) }
            do {
                _ = try FileIO.read(path)
            } catch {
                #expect(error.isNotRegularFile && error.foundFileType == kind, "\(path): \(error)")
            }
        }
    }
}
