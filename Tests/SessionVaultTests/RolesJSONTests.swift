import Foundation
import Testing
@testable import SessionVault

@Suite("RolesJSON: the fast path and JSONSerialization agree")
struct RolesJSONTests {
    @Test(arguments: [
        #"[]"#, #"["peer_mentor"]"#, #"["a","b c","d-e"]"#, #"["esc\"aped"]"#, #"["ünï"]"#,
        #"[ "spaced" ]"#, #"["a",]"#, #"["a""b"]"#, #"[1]"#, #"not json"#, #"["unterminated]"#, #"{}"#
    ])
    func bothPathsGiveTheSameAnswer(text: String) {
        let reference = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String]
        #expect(RolesJSON.decode(text) == reference)
    }

    @Test func whatTheLibraryWritesReadsBack() throws {
        let roles = ["peer_mentor", "caregiver", "ÅØÆ", "quote\"d"]
        let text = String(decoding: try JSONEncoder().encode(roles), as: UTF8.self)
        #expect(RolesJSON.decode(text) == roles)
    }
}
