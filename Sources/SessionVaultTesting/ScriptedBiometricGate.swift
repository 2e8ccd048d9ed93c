import Foundation
import SessionVault

/// Stands in for the platform's biometric prompt where there is no sensor (a test, a build
/// machine, a preview): it answers every prompt with a scripted result, reports a scripted
/// enrolment state, and counts the prompts.
///
/// ```swift
/// let gate = ScriptedBiometricGate(result: .cancelled)
/// let manager = ResumeManager(path: path, keyProvider: keys, refresher: refresher, biometrics: gate)
/// // … resume after an idle period …
/// #expect(gate.promptCount == 1)
/// ```
public final class ScriptedBiometricGate: BiometricGate, @unchecked Sendable {
    // Sendable: `lock` guards the mutable fields.
    private let lock = NSLock()
    private var result: BiometricResult
    private var domainState: [UInt8]?
    private var prompts = 0

    /// A gate that answers `result` and reports `domainState` as the enrolment (nil: biometrics
    /// not set up on the device).
    public init(result: BiometricResult = .success, domainState: [UInt8]? = [1, 2, 3]) {
        self.result = result
        self.domainState = domainState
    }

    /// How many times a prompt was shown.
    public var promptCount: Int { lock.withLock { prompts } }

    /// Changes what the next prompts answer.
    public func set(result: BiometricResult) { lock.withLock { self.result = result } }

    /// Changes the enrolment state: a different value reads as "biometrics changed".
    public func set(domainState: [UInt8]?) { lock.withLock { self.domainState = domainState } }

    /// The scripted enrolment state.
    public func currentDomainState() async -> [UInt8]? { lock.withLock { domainState } }

    /// Counts the prompt and answers the scripted result.
    public func authenticate(reason: String) async -> BiometricResult {
        lock.withLock {
            prompts += 1
            return result
        }
    }
}
