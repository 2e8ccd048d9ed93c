import Foundation
import SessionVault

extension FuzzTarget {
    /// Any text as a JWT through `JWTClaims.decode`, then the claims the token response reads
    /// from it. The reader only gives claims or none; what is checked is that it never traps,
    /// hangs or grows without bound on any text (libFuzzer's and ASan's own limits).
    public static func jwtClaims(_ input: [UInt8]) -> String? {
        let text = String(decoding: input, as: UTF8.self)
        let claims = JWTClaims.decode(text)
        for name in ["sub", "iss", "email", "role", "tenant_id", "tid", "name"] { _ = claims[name] as? String }
        if !claims.isEmpty, text.split(separator: ".", omittingEmptySubsequences: false).count != 3 {
            return "JWTClaims.decode gave claims for text that is not three dot-separated parts"
        }
        return nil
    }
}
