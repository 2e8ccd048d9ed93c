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
final class DPoPServerClock: @unchecked Sendable {
    // Sendable: `lock` guards `measured` and `lastShift`.
    private let lock = NSLock()
    private var measured: TimeInterval?
    private var lastShift: TimeInterval = 0

    /// How far the proofs' dating may be from a new measurement before a refused proof is sent
    /// again, re-dated: the `Date` header has whole seconds and the answer took its time to come,
    /// and some servers allow only a few seconds of skew (Keycloak's default is 2 s over a 10 s
    /// lifetime).
    static let meaningfulChange: TimeInterval = 5

    /// Server minus device seconds, last measured in this process; nil before any answer.
    var offset: TimeInterval? { lock.withLock { measured } }

    /// Records the server's `Date` against the device's clock at the answer.
    /// - Returns: whether the latest proof was dated more than `meaningfulChange` away from the
    ///   new measurement (false when the two dates give no usable offset: more than ten years
    ///   apart, a header that is no clock).
    func measure(serverDate: Date, deviceNow: Date) -> Bool {
        let offset = serverDate.timeIntervalSince(deviceNow)
        guard offset.isFinite, abs(offset) < Self.largestOffset else { return false }
        return lock.withLock {
            measured = offset
            return abs(offset - lastShift) > Self.meaningfulChange
        }
    }

    /// Ten years: beyond it a `Date` header is not taken as the server's clock.
    static let largestOffset: TimeInterval = 10 * 365 * 86_400

    /// `iat` for a proof made at `deviceNow`: whole seconds of the server's estimated time.
    /// `recorded` is the vault's offset, used until this process measured one. Never traps: an
    /// estimate outside any plausible date is dated by the device's clock alone. The shift used
    /// is kept, so that a refusal's `Date` is compared with what the refused proof carried.
    func issuedAt(deviceNow: Date, recorded: TimeInterval?) -> Int64 {
        let shift: TimeInterval = lock.withLock {
            let candidate = measured ?? recorded ?? 0
            lastShift = candidate.isFinite && abs(candidate) < Self.largestOffset ? candidate : 0
            return lastShift
        }
        let seconds = (deviceNow.timeIntervalSince1970 + shift).rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e15 else { return 0 }
        return Int64(seconds)
    }
}
