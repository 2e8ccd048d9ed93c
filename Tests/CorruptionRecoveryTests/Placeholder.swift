import Testing
@Test func corruptionSuitePlaceholder() { #expect(Bool(true)) }
