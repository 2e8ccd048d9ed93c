import Testing
@Test func cliSuitePlaceholder() { #expect(Bool(true)) }
