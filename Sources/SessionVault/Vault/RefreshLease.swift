import Foundation

/// The answer to a request for the right to spend the current refresh token.
public enum RefreshLease: Sendable, Equatable {
    /// This owner holds the lease until the date; the refresh is durably marked pending.
    case acquired(until: Date)
    /// Another process (or manager) is refreshing; wait for its result.
    case heldElsewhere(until: Date)
}
