import Foundation
import SessionVaultTesting

extension ManualClock {
    /// A clock at `Fixtures.signIn`, the sign-in time the tests' token responses are made for.
    public convenience init() {
        self.init(Date(timeIntervalSince1970: TimeInterval(Fixtures.signInSeconds)))
    }
}
