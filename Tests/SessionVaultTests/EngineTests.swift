import CSQLCipher
import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

/// Which SQLCipher this test process really runs on, proved at run time: a build once compiled
/// against a 4.x header and linked Debian's 3.4.1 without a sign. Each CI leg names the engine it
/// means to test in `SESSIONVAULT_EXPECT_SQLCIPHER` (3 or 4); `PRAGMA cipher_version` must agree.
@Suite("The SQLCipher engine under test")
struct EngineTests {
    static let environment = ProcessInfo.processInfo.environment

    @Test func theLinkedEngineIsTheOneThisLegExpects() throws {
        let directory = TemporaryDirectory()
        let connection = try Self.keyedConnection(directory.file("engine.db"))
        let version = try #require(try connection.cipherVersion(), "the linked library is SQLCipher")
        let major = PageScanner.majorVersion(version)
        #expect(major == 3 || major == 4, "SQLCipher \(version)")
        if let expected = Self.environment["SESSIONVAULT_EXPECT_SQLCIPHER"], !expected.isEmpty {
            #expect(String(major) == expected, "this leg expects SQLCipher \(expected).x and runs on \(version)")
        }
        // The engine's SQLite matches what the C header of this build declared: a header from one
        // engine with the library of another is the mislink this guards against.
        #expect(Connection.sqliteVersion == SQLITE_VERSION, "library SQLite \(Connection.sqliteVersion), header \(SQLITE_VERSION)")
    }

    /// The 4.x leg runs the cross-engine and 4.x-shell tests; make sure it was given what they need
    /// instead of letting them drop out.
    @Test func theFourLegHasTheOtherEngineAndItsShell() throws {
        guard Self.environment["SESSIONVAULT_EXPECT_SQLCIPHER"] == "4" else { return }
        let other = try #require(Self.environment["SESSIONVAULT_OTHER_ENGINE_CLI"], "SESSIONVAULT_OTHER_ENGINE_CLI")
        #expect(FileManager.default.isExecutableFile(atPath: other), "the 3.x build's sessionvault at \(other)")
        let shell = try #require(Self.environment["SESSIONVAULT_SQLCIPHER_SHELL"], "SESSIONVAULT_SQLCIPHER_SHELL")
        #expect(FileManager.default.isExecutableFile(atPath: shell), "the 4.x sqlcipher shell at \(shell)")
    }

    /// SQLCipher 4.6+ logs at WARN to stderr on Linux; every keyed connection turns that off. On
    /// 3.x the PRAGMA does not exist and answers nothing.
    @Test func theEngineLogIsOffOnEveryKeyedConnection() throws {
        let directory = TemporaryDirectory()
        let connection = try Self.keyedConnection(directory.file("log.db"))
        let version = try #require(try connection.cipherVersion())
        let level = try connection.scalarText("PRAGMA cipher_log_level")
        if PageScanner.majorVersion(version) >= 4 {
            #expect(level == "NONE")
        } else {
            #expect(level == nil)
        }
    }

    static func keyedConnection(_ path: String) throws -> Connection {
        let keys = try VaultKeys(root: SecretBytes.random(count: 32))
        let connection = try Connection(path: path, create: true)
        try keys.databaseRawKey.withUnsafeBytes { try connection.key($0) }
        try connection.pinCipherSettings(pageSize: 4096, kdfIterations: 64_000)
        return connection
    }
}
