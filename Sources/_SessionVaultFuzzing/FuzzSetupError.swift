import SessionVault

/// A fuzz fixture that could not be made (a full disk, a library refusal while building it):
/// not a finding about the input, reported as such.
struct FuzzSetupError: Error, CustomStringConvertible {
    let detail: String
    var description: String { "fuzz setup failed: \(detail)" }
}
