import Foundation
import Testing
@testable import SessionVault
import SessionVaultTestSupport

@Suite("Vault: store, read, rotate, sign out, wipe on a real SQLCipher file")
struct VaultRoundTripTests {
    @Test func storesAndReadsEveryField() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let stored = try await vault.store(Fixtures.goTrue(), biometricEnabled: true)
        await vault.close()

        let reopened = try fixture.open()
        let session = try #require(try await reopened.currentSession())
        #expect(session == stored)
        #expect(session.identity.subject == "user-123")
        #expect(session.identity.email == "mentor@example.org")
        #expect(session.identity.tenant == "tenant-9")
        #expect(session.identity.displayName == "Kari Nordmann")
        #expect(session.identity.roles == ["peer_mentor"])
        #expect(session.identity.issuer == "https://project.supabase.co/auth/v1")
        #expect(session.identity.metadataJSON == #"{"full_name":"Kari Nordmann"}"#)
        #expect(session.biometricEnabled)
        #expect(session.tokenType == "bearer")
        #expect(session.tokenVersion == 1)
        #expect(session.issuedAt == fixture.clock.now)
        #expect(session.accessExpiresAt == fixture.clock.now.addingTimeInterval(3600))
        #expect(session.serverExpiresAt == Date(timeIntervalSince1970: 1_800_003_600))
        #expect(session.refreshExpiresAt == fixture.clock.now.addingTimeInterval(30 * 24 * 3600))
        #expect(session.refreshTokenFingerprint?.hex.count == 16)

        let refresh = try #require(try await reopened.refreshToken())
        let value = refresh.withRevealedBytes { String(decoding: $0, as: UTF8.self) }
        #expect(value == "\(Fixtures.refreshMarker)-1")
        #expect(refresh.fingerprint == session.refreshTokenFingerprint)
    }

    @Test func tokensNeverAppearInPlaintextOnDisk() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        try await vault.rotate(Fixtures.goTrue(refresh: "\(Fixtures.refreshMarker)-2"))
        // While open, the WAL and shared-memory files exist: scan them too.
        let files = fixture.allFileBytes()
        #expect(files[fixture.files.wal] != nil)
        for (path, bytes) in files {
            #expect(!bytes.contains(Fixtures.refreshMarker), "refresh token bytes in \(path)")
            #expect(!bytes.contains(Fixtures.accessMarker), "access token bytes in \(path)")
            #expect(!bytes.contains("mentor@example.org"), "metadata in clear in \(path)")
        }
        await vault.close()
    }

    @Test func rotateReplacesBothTokensAndBumpsTheVersion() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let first = try await vault.store(Fixtures.goTrue())
        fixture.clock.advance(by: 60)
        let second = try await vault.rotate(Fixtures.goTrue(refresh: "\(Fixtures.refreshMarker)-2", access: "second-access"))
        #expect(second.id == first.id)
        #expect(second.tokenVersion == 2)
        #expect(second.refreshTokenFingerprint != first.refreshTokenFingerprint)
        #expect(second.accessExpiresAt == fixture.clock.now.addingTimeInterval(3600))
        let access = try #require(try await vault.accessToken())
        #expect(access.withRevealedBytes { String(decoding: $0, as: UTF8.self) } == "second-access")
        // A result computed against version 1 arrives late: dropped, not written.
        await #expect(throws: VaultError.staleSession) {
            try await vault.rotate(Fixtures.goTrue(refresh: "late"), expectedVersion: 1)
        }
        #expect(try await vault.currentSession()?.tokenVersion == 2)
    }

    @Test func whatRotateReturnsIsExactlyWhatTheFileHolds() async throws {
        // rotate keeps its state in memory instead of reading the row back: prove they agree,
        // for a full GoTrue response and for an RFC 6749 one without refresh token or scope.
        let fixture = TestVault()
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        try await vault.touch()
        fixture.clock.advance(by: 90)
        let full = try await vault.rotate(
            Fixtures.goTrue(refresh: "\(Fixtures.refreshMarker)-2", access: "second-access"),
            serverClockOffset: 2.5)
        fixture.clock.advance(by: 30)
        let partial = try await vault.rotate(TokenResponse(json: Data(#"{"access_token":"third-access","token_type":"bearer","expires_in":600}"#.utf8)))
        #expect(partial.refreshTokenFingerprint == full.refreshTokenFingerprint, "the refresh token is kept")
        let inMemory = try await vault.snapshot()
        let inMemoryRefresh = try #require(try await vault.refreshToken())
        let inMemoryAccess = try #require(try await vault.accessToken())
        await vault.close()
        let reopened = try fixture.open()
        #expect(try await reopened.snapshot() == inMemory)
        #expect(try await reopened.currentSession() == partial)
        #expect(try #require(try await reopened.refreshToken()).hasSameValue(as: inMemoryRefresh))
        #expect(try #require(try await reopened.accessToken()).hasSameValue(as: inMemoryAccess))
        #expect(try await reopened.accessToken()?.fingerprint == inMemoryAccess.fingerprint)
    }

    @Test func storingTheSameTokensAgainIsANoOpAndEmitsNothing() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let first = try await vault.store(Fixtures.goTrue())
        let generation = await vault.generation
        let again = try await vault.store(Fixtures.goTrue())
        #expect(again == first)
        #expect(await vault.generation == generation)
    }

    @Test func signOutClearsTokensAndKeepsBiometricPreference() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue(), biometricEnabled: true)
        try await vault.signOut()
        #expect(try await vault.currentSession() == nil)
        #expect(try await vault.refreshToken() == nil)
        #expect(try await vault.snapshot() == .empty(.signedOut))
        let next = try await vault.store(Fixtures.goTrue(refresh: "next"))
        #expect(next.biometricEnabled, "the device preference outlives a sign-out by default")
    }

    @Test func wipeDeletesEveryFileAndTheKey() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        try await vault.wipe()
        for path in [fixture.files.database, fixture.files.wal, fixture.files.sharedMemory, fixture.files.journal, fixture.files.header, fixture.keyPath] {
            #expect(!FileManager.default.fileExists(atPath: path), "\(path) survived the wipe")
        }
        // A fresh vault opens afterwards, empty.
        let fresh = try fixture.open()
        #expect(try await fresh.snapshot() == .empty(.neverSignedIn))
    }

    @Test func wipeAlsoRemovesTemporaryFilesLeftByAnInterruptedWrite() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        try await vault.store(Fixtures.goTrue())
        let leftovers = [fixture.keyPath + ".tmp-1f2e3d", fixture.files.header + ".tmp-4c5b6a"]
        for path in leftovers { _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: 56)) }
        let unrelated = fixture.directory.file("notes.txt")
        _ = FileManager.default.createFile(atPath: unrelated, contents: Data("keep".utf8))
        try await vault.wipe()
        for path in leftovers { #expect(!FileManager.default.fileExists(atPath: path), "\(path) survived the wipe") }
        #expect(FileManager.default.fileExists(atPath: unrelated), "a wipe touches only the vault's own files")
    }

    @Test func parsesAPlainOAuthResponse() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let session = try await vault.store(TokenResponse(json: Fixtures.oauthJSON()))
        #expect(session.identity.subject == "oauth-user")
        #expect(session.identity.issuer == "https://idp.example")
        #expect(session.scope == "openid email")
        #expect(session.tokenType == "Bearer")
    }

    @Test func refusesAResponseWithoutSubjectToStore() async throws {
        let fixture = TestVault()
        let vault = try fixture.open()
        let response = try TokenResponse(json: Fixtures.oauthJSON(subjectInIDToken: false))
        await #expect(throws: VaultError.invalidTokenResponse(.missingField("user.id or a sub claim"))) {
            try await vault.store(response)
        }
    }
}
