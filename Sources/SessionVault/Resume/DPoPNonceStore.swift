import Foundation

/// The latest `DPoP-Nonce` each server gave (RFC 9449 §8, §9), by origin and role, in memory: the
/// next proof to that server carries it, so a server that requires nonces costs one extra round
/// trip per process, not one per request.
///
/// An authorization server's nonce (§8) and a resource server's (§9) are kept apart even on one
/// origin: they are issued independently, and one overwriting the other would cost each side a
/// refusal per switch.
final class DPoPNonceStore: @unchecked Sendable {
    /// Which server a nonce came from: the one that issues tokens (token requests, logout) or a
    /// resource server (the app's own API calls).
    enum Server: String, Sendable {
        case authorization
        case resource
    }

    // Sendable: `lock` guards `nonces` (NSLock: Mutex needs macOS 15 / iOS 18).
    private let lock = NSLock()
    private var nonces: [String: String] = [:]

    /// `scheme://host:port` of `url`: a nonce belongs to the server that issued it.
    static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let host = url.host?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host):\(port)"
    }

    func nonce(for url: URL, server: Server) -> String? {
        let key = server.rawValue + " " + Self.origin(of: url)
        return lock.withLock { nonces[key] }
    }

    /// Remembers `nonce` for `url`'s server. A nonce is a server's opaque value; one that is not
    /// printable ASCII or longer than 1 KiB is ignored (it would go into a signed JSON string).
    /// - Returns: whether it was taken (a proof can carry it now).
    @discardableResult
    func remember(_ nonce: String, for url: URL, server: Server) -> Bool {
        guard !nonce.isEmpty, nonce.utf8.count <= 1024, nonce.unicodeScalars.allSatisfy({ $0.value >= 0x21 && $0.value <= 0x7E && $0 != "\"" && $0 != "\\" })
        else { return false }
        let key = server.rawValue + " " + Self.origin(of: url)
        lock.withLock { nonces[key] = nonce }
        return true
    }
}
