import Foundation
@testable import SessionVault

/// Stands in for the platform's biometric prompt (there is no sensor on a build machine): it
/// answers with a scripted result and enrolment state, and counts prompts.
final class TestBiometricGate: BiometricGate, @unchecked Sendable {
    // Sendable: `lock` guards the mutable fields.
    private let lock = NSLock()
    private var result: BiometricResult
    private var domainState: [UInt8]?
    private var prompts = 0

    init(result: BiometricResult = .success, domainState: [UInt8]? = [1, 2, 3]) {
        self.result = result
        self.domainState = domainState
    }

    var promptCount: Int { lock.withLock { prompts } }

    func set(result: BiometricResult) { lock.withLock { self.result = result } }
    func set(domainState: [UInt8]?) { lock.withLock { self.domainState = domainState } }

    func currentDomainState() async -> [UInt8]? { lock.withLock { domainState } }

    func authenticate(reason: String) async -> BiometricResult {
        lock.withLock {
            prompts += 1
            return result
        }
    }
}
