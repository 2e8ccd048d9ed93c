/// One challenge of a `WWW-Authenticate` header (RFC 7235 §2.1, §4.1): its scheme and its
/// auth-params. A header may hold several (`Bearer realm="api", DPoP algs="ES256"`): a
/// parameter belongs to the challenge it follows, so `error="use_dpop_nonce"` is read as the DPoP
/// challenge's error only when it is one of that challenge's parameters, never as words found
/// anywhere in the header.
struct AuthenticationChallenge: Equatable {
    /// The scheme, lowercased (schemes are case-insensitive).
    let scheme: String
    /// The auth-params, names lowercased, values unquoted (a token68 credential is not kept).
    var parameters: [String: String]

    /// The header's challenges, in order. Lenient (a header is a server's text, never trusted to
    /// be well formed): an element it cannot read is skipped up to the next comma, and an
    /// unterminated quoted string ends the parse with the challenges read so far.
    static func parse(_ header: String) -> [AuthenticationChallenge] {
        let characters = Array(header.prefix(8 * 1024))
        var index = 0
        var challenges: [AuthenticationChallenge] = []

        func skipSpaces() { while index < characters.count, characters[index] == " " || characters[index] == "\t" { index += 1 } }
        func token() -> String {
            let start = index
            while index < characters.count, !" \t,=\"".contains(characters[index]) { index += 1 }
            return String(characters[start..<index])
        }
        func quoted() -> String? {
            index += 1  // the opening quote
            var value = ""
            while index < characters.count {
                let character = characters[index]
                index += 1
                if character == "\"" { return value }
                if character == "\\", index < characters.count {
                    value.append(characters[index])
                    index += 1
                } else {
                    value.append(character)
                }
            }
            return nil  // unterminated
        }

        while index < characters.count {
            skipSpaces()
            if index < characters.count, characters[index] == "," { index += 1; continue }
            let name = token()
            guard !name.isEmpty else {
                // A stray '=' or quote (an unquoted value holding '=', a server's typo): the rest
                // of this element is unreadable, the next one may not be.
                index += 1
                while index < characters.count, characters[index] != "," { index += 1 }
                continue
            }
            skipSpaces()
            if index < characters.count, characters[index] == "=" {
                index += 1
                // A token68 ends in '=' padding: `abc==` or `abc=` before a comma or the end.
                if index >= characters.count || characters[index] == "=" || characters[index] == "," {
                    while index < characters.count, characters[index] == "=" { index += 1 }
                    continue
                }
                skipSpaces()
                let value: String
                if index < characters.count, characters[index] == "\"" {
                    guard let read = quoted() else { break }
                    value = read
                } else {
                    value = token()
                }
                // A parameter before any scheme belongs to no challenge.
                if !challenges.isEmpty { challenges[challenges.count - 1].parameters[name.lowercased()] = value }
            } else {
                challenges.append(AuthenticationChallenge(scheme: name.lowercased(), parameters: [:]))
            }
        }
        return challenges
    }
}
