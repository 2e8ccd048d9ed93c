import Foundation

/// The authorization server's clock as this process last saw it, for the `iat` of DPoP proofs.
///
/// A server refuses a proof whose `iat` is outside its window (RFC 9449 §11.1; minutes at most),
/// so a device whose clock is off by more than that could never refresh if proofs were dated
/// by the device's clock alone. A proof is dated by the manager's clock plus the offset (server
/// minus device) measured from the `Date` header of the server's last answer to this process;
/// before any answer, by the offset the vault recorded when it stored the session's tokens.
///
/// The offset is only ever used to date proofs: it is never evidence that time passed, so a
/// clock moved back cannot make a token look fresh through it.
///
/// One offset per server role, as the nonces are kept: the app's own API may run on another
/// clock than its authorization server (its `Date` hours away), and a proof the API re-dated
/// must not move the dating of the next token request. A resource server not measured yet is
/// dated as the authorization server is (the best estimate at hand).
final class DPoPServerClock: @unchecked Sendable {
    // Sendable: `lock` guards `measured` and `lastShift`.
    private let lock = NSLock()
    private var measured: [DPoPNonceStore.Server: TimeInterval] = [:]
    private var lastShift: [DPoPNonceStore.Server: TimeInterval] = [:]

    /// How far the proofs' dating may be from a new measurement before a refused proof is sent
    /// again, re-dated: the `Date` header has whole seconds and the answer took its time to come,
    /// and some servers allow only a few seconds of skew (Keycloak's default is 2 s over a 10 s
    /// lifetime).
    static let meaningfulChange: TimeInterval = 5

    /// The authorization server's clock minus the device's, last measured in this process; nil
    /// before any answer.
    var offset: TimeInterval? { offset(for: .authorization) }

    /// `server`'s clock minus the device's, last measured in this process; nil before any answer.
    func offset(for server: DPoPNonceStore.Server) -> TimeInterval? { lock.withLock { measured[server] } }

    /// Records the server's `Date` against the device's clock at the answer.
    /// - Returns: whether the latest proof was dated more than `meaningfulChange` away from the
    ///   new measurement (false when the two dates give no usable offset: more than ten years
    ///   apart, a header that is no clock).
    func measure(serverDate: Date, deviceNow: Date, server: DPoPNonceStore.Server = .authorization) -> Bool {
        let offset = serverDate.timeIntervalSince(deviceNow)
        guard offset.isFinite, abs(offset) < Self.largestOffset else { return false }
        return lock.withLock {
            measured[server] = offset
            return abs(offset - (lastShift[server] ?? 0)) > Self.meaningfulChange
        }
    }

    /// Ten years: beyond it a `Date` header is not taken as the server's clock.
    static let largestOffset: TimeInterval = 10 * 365 * 86_400

    /// `iat` for a proof made at `deviceNow`: whole seconds of the server's estimated time.
    /// `recorded` is the vault's offset, used until this process measured one. Never traps: an
    /// estimate outside any plausible date is dated by the device's clock alone. The shift used
    /// is kept, so that a refusal's `Date` is compared with what the refused proof carried.
    func issuedAt(deviceNow: Date, recorded: TimeInterval?, server: DPoPNonceStore.Server = .authorization) -> Int64 {
        let shift: TimeInterval = lock.withLock {
            let candidate = measured[server] ?? measured[.authorization] ?? recorded ?? 0
            let shift = candidate.isFinite && abs(candidate) < Self.largestOffset ? candidate : 0
            lastShift[server] = shift
            return shift
        }
        let seconds = (deviceNow.timeIntervalSince1970 + shift).rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e15 else { return 0 }
        return Int64(seconds)
    }
}
