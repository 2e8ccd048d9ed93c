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
    // Sendable: `lock` guards `measured`.
    private let lock = NSLock()
    private var measured: TimeInterval?

    /// How far a new measurement must move the offset before a refused proof is sent again
    /// with it: the `Date` header has whole seconds, and servers' windows are a minute or more.
    static let meaningfulChange: TimeInterval = 30

    /// Server minus device seconds, last measured in this process; nil before any answer.
    var offset: TimeInterval? { lock.withLock { measured } }

    /// Records the server's `Date` against the device's clock at the answer.
    /// - Returns: the new offset, or nil when the two dates give no usable offset (more than
    ///   ten years apart: a header that is no clock).
    @discardableResult
    func measure(serverDate: Date, deviceNow: Date) -> TimeInterval? {
        let offset = serverDate.timeIntervalSince(deviceNow)
        guard offset.isFinite, abs(offset) < Self.largestOffset else { return nil }
        lock.withLock { measured = offset }
        return offset
    }

    /// Ten years: beyond it a `Date` header is not taken as the server's clock.
    static let largestOffset: TimeInterval = 10 * 365 * 86_400

    /// `iat` for a proof made at `deviceNow`: whole seconds of the server's estimated time.
    /// `recorded` is the vault's offset, used until this process measured one. Never traps: an
    /// estimate outside any plausible date is dated by the device's clock alone.
    func issuedAt(deviceNow: Date, recorded: TimeInterval?) -> Int64 {
        let candidate = offset ?? recorded ?? 0
        let shift = candidate.isFinite && abs(candidate) < Self.largestOffset ? candidate : 0
        let seconds = (deviceNow.timeIntervalSince1970 + shift).rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e15 else { return 0 }
        return Int64(seconds)
    }
}
