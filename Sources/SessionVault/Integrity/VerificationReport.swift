import Foundation

/// The result of a full scan: every page read and every sealed field opened.
public struct VerificationReport: Sendable, Equatable, Codable {
    /// Whether the scan found nothing wrong.
    public var intact: Bool { findings.isEmpty }
    /// How many database pages were read (0 when the vault did not open).
    public package(set) var pagesScanned: Int
    /// What was found, in the order found; empty when intact.
    public package(set) var findings: [VerificationFinding]
    /// Seconds the scan took.
    public package(set) var elapsed: TimeInterval

    package init(pagesScanned: Int, findings: [VerificationFinding], elapsed: TimeInterval) {
        self.pagesScanned = pagesScanned
        self.findings = findings
        self.elapsed = elapsed
    }
}
