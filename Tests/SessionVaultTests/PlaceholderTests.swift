import Testing
@testable import SessionVault
@Test func placeholder() { #expect(EmbeddedMigrations.all.count == 4) }
