import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// The guard against a plain SQLite winning the symbol race: with a dynamic SQLCipher framework,
/// iOS's loader can bind `sqlite3_*` to the system's SQLite, and every write would land
/// unencrypted. The library asks `PRAGMA cipher_version` on every connection and refuses
/// (`notSQLCipher`) before it writes a page. Shown here the way it happens: a child process
/// (VaultTestHost) whose `sqlite3_*` symbols are taken by Debian's plain libsqlite3, preloaded
/// ahead of the SQLCipher it was linked with. Plain SQLite has no `sqlite3_key`: a small preloaded
/// library answers it (and `sqlite3_rekey`) with SQLITE_OK, as a codec-less build's stubs would, so
/// the open gets as far as the guard.
@Suite("A plain SQLite in SQLCipher's place is refused")
struct NotSQLCipherTests {
    /// `LD_PRELOAD` for the child: the key stubs, then the plain SQLite. Nil when this machine
    /// cannot make it (no C compiler or no plain libsqlite3), or the tests run under a sanitizer.
    static let preload = Task<String?, Never> {
        #if os(Linux)
        let scratch = TemporaryDirectory("sessionvault-plain-sqlite")
        let source = scratch.file("keystubs.c")
        let library = scratch.file("keystubs.so")
        let stubs = """
            int sqlite3_key(void *db, const void *key, int length) { (void)db; (void)key; (void)length; return 0; }
            int sqlite3_rekey(void *db, const void *key, int length) { (void)db; (void)key; (void)length; return 0; }
            """
        guard FileManager.default.createFile(atPath: source, contents: Data(stubs.utf8)),
            let compiled = try? await Shell.run("/usr/bin/env", ["cc", "-shared", "-fPIC", "-o", library, source]),
            compiled.status == 0,
            let found = try? await Shell.run("/usr/bin/env", ["cc", "-print-file-name=libsqlite3.so.0"])
        else { return nil }
        let plain = found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // cc prints the bare name back when it finds no such file.
        guard plain.hasPrefix("/"), FileManager.default.fileExists(atPath: plain) else { return nil }
        return "\(library) \(plain)"
        #else
        return nil
        #endif
    }

    /// Runs VaultTestHost with the plain SQLite preloaded.
    static func runHost(_ arguments: [String]) async throws -> (status: Int32?, output: String) {
        let preload = try #require(await preload.value, "cc and Debian's libsqlite3 (package sqlite3) make the plain-SQLite child")
        let host = try TestHostProcess(arguments, scratch: TemporaryDirectory("sessionvault-host"), environment: ["LD_PRELOAD": preload])
        let status = await host.finish(timeout: 60)
        return (status, host.output)
    }

    /// Whether any file in `directory` is a plaintext SQLite database (its first 16 bytes).
    static func plaintextDatabases(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { name in
            guard let data = FileManager.default.contents(atPath: "\(directory)/\(name)") else { return false }
            return data.prefix(16) == Data("SQLite format 3\0".utf8)
        }
    }

    @Test(.enabled(if: NotSQLCipherTests.isLinuxWithoutSanitizer))
    func theFirstOpenRefusesAndWritesNoPlaintextDatabase() async throws {
        let fixture = TestVault()
        let result = try await Self.runHost(["open-create", fixture.path, fixture.keyPath])
        #expect(result.status == 1, "the host must fail: \(result.output)")
        #expect(result.output.contains("is not SQLCipher"), "\(result.output)")
        let snapshots = result.output.split(separator: "\n").filter { $0.hasPrefix("empty ") || $0.hasPrefix("session ") }
        #expect(snapshots.isEmpty, "no snapshot from a plain SQLite: \(result.output)")
        #expect(Self.plaintextDatabases(in: fixture.directory.path) == [], "a plaintext database was written")
        #expect(!FileManager.default.fileExists(atPath: fixture.path), "no vault file under the vault's name")
    }

    @Test(.enabled(if: NotSQLCipherTests.isLinuxWithoutSanitizer))
    func anExistingVaultIsRefusedAndLeftAsItWas() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        await vault.close()
        let before = fixture.allFileBytes()
        let result = try await Self.runHost(["open", fixture.path, fixture.keyPath])
        #expect(result.status == 0, "the host did not finish: \(result.output)")
        #expect(result.output.contains("error: ") && result.output.contains("is not SQLCipher"), "\(result.output)")
        #expect(fixture.allFileBytes() == before, "the vault's files changed under a plain SQLite")
        // And the same build without the preload still opens it: the refusal changed nothing.
        let reopened = try TestHostProcess(["open", fixture.path, fixture.keyPath], scratch: TemporaryDirectory("sessionvault-host"))
        #expect(await reopened.finish(timeout: 60) == 0)
        #expect(reopened.output.contains("opened"), "\(reopened.output)")
    }

    /// LD_PRELOAD is the Linux loader's; a sanitizer's runtime must come first in the library
    /// list (make check-asan, check-tsan), so the preload is not tried there.
    static var isLinuxWithoutSanitizer: Bool {
        #if os(Linux)
        guard let program = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(program) }
        return dlsym(program, "__asan_init") == nil && dlsym(program, "__tsan_init") == nil
        #else
        return false
        #endif
    }
}
