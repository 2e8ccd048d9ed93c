import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// A first launch must not be stuck: on iOS, Application Support does not exist until an app
/// creates it. A vault named inside a directory that is missing is created with it (mode 0700),
/// instead of an `unavailable` that no retry ever leaves; a path through a non-directory is refused
/// with a clear error before anything is written or sent.
@Suite("The vault's directory missing at first launch")
struct MissingDirectoryTests {
    let directory = TemporaryDirectory()
    var keyPath: String { directory.file("vault.key") }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode
    }

    @Test func theFirstLaunchCreatesTheMissingDirectoriesAndGoesToLogin() async throws {
        let support = directory.file("Library/Application Support")
        let path = (support as NSString).appendingPathComponent("vault.db")
        let manager = ResumeManager(
            path: path, keyProvider: KeyFileProvider(path: keyPath),
            refresher: GoTrueRefresher(baseURL: try #require(URL(string: "http://127.0.0.1:9")), apiKey: "anon"))
        let outcome = await manager.resume()
        #expect(outcome == .login(reason: .neverSignedIn, showExpiredMessage: false), "\(outcome)")
        for created in [directory.file("Library"), support] {
            let mode = try #require(Self.mode(created), "created: \(created)")
            #expect(mode & S_IFMT == S_IFDIR)
            #expect(mode & 0o777 == 0o700, "only the owner may enter a directory the library made")
        }
        // The sign-in that follows is stored.
        try await manager.vault.store(Fixtures.goTrue())
        guard case .home = await manager.resume() else { Issue.record("the stored sign-in resumes"); return }
    }

    @Test func aPathThroughAFileIsRefusedClearlyAndNothingIsCreated() async throws {
        let file = directory.file("not-a-directory")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("app data".utf8)))
        let path = file + "/inner/vault.db"
        #expect(throws: VaultError.self) { try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath)) }
        do {
            _ = try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath))
        } catch {
            guard case .misconfigured = error else { Issue.record("a path through a file is a misconfiguration: \(error)"); return }
            #expect("\(error)".contains("not a directory"))
        }
        #expect(FileManager.default.contents(atPath: file) == Data("app data".utf8))
        #expect(!FileManager.default.fileExists(atPath: keyPath), "no key was made for a vault that cannot exist")
    }

    @Test func aLookWithoutCreateWritesNoDirectory() throws {
        let path = directory.file("absent/vault.db")
        #expect(throws: VaultError.self) { try Vault.open(at: path, keyProvider: KeyFileProvider(path: keyPath), create: false) }
        #expect(!FileManager.default.fileExists(atPath: directory.file("absent")), "read-only work never writes")
    }
}
