import Foundation

/// The result of a full scan: every page read and every sealed field opened.
public struct VerificationReport: Sendable, Equatable, Codable {
    public var intact: Bool { findings.isEmpty }
    public var pagesScanned: Int
    public var findings: [VerificationFinding]
    /// Seconds the scan took.
    public var elapsed: TimeInterval

    public init(pagesScanned: Int, findings: [VerificationFinding], elapsed: TimeInterval) {
        self.pagesScanned = pagesScanned
        self.findings = findings
        self.elapsed = elapsed
    }
}
