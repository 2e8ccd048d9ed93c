import ArgumentParser
import Foundation
import SessionVault

/// `sessionvault verify`: a full scan of every page and every sealed field.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Scan the whole vault: every page read, every sealed token opened. Changes nothing.",
        discussion: """
            Scans a private copy of the vault's files, so the originals never change. 1 means damage \
            found (also when found while opening; the pages are then scanned all the same). Each \
            finding names the page, table and session it concerns, in text and JSON alike, and \
            the report says how many pages were scanned and how long it took. --evidence adds the \
            chain-of-custody record.
            """ + ExitStatus.help)

    @OptionGroup var options: VaultOptions
    @OptionGroup var clock: ClockOptions

    @OptionGroup var evidence: EvidenceOptions

    func validate() throws { try options.requireKey() }

    func run() async throws {
        let console = Console()
        try await CLIFailure.reporting(console, json: options.json) {
            try options.location().requireVault()
            let keys = try options.keyProvider(keyStatus: CLIFailure.keyProblem)
            let now = clock.now
            return try await options.withEvidenceCopy { copy in try await verify(copy, keys: keys, now: now, console: console) }
        }
    }

    /// Verifies the private copy (see `EvidenceCopy`): the originals are never opened.
    private func verify(_ copy: EvidenceCopy, keys: any KeyProvider, now: Date, console: Console) async throws -> Int32 {
        let started = Date()
        let report: VerificationReport
        var foundAtOpen = false
        do {
            report = try await options.withOpenCopy(copy, keys: keys, now: now) { try await $0.verify() }
        } catch {
            if case .corrupted(let reason)? = error as? VaultError, reason.kind == .keyMissing, (keys as? KeyFileProvider)?.holdsShreddedKey() == true {
                // Zeros where the key was: a wipe began on this vault and was interrupted. The
                // vault can never be read again (damaged, not a key problem), and the recovery
                // finishes what that wipe started.
                throw CLIFailure(
                    "\(options.path) cannot be read: its key was destroyed by an interrupted wipe (the key file holds only zeros); "
                        + "run `sessionvault resume` to finish the recovery, or `sessionvault wipe --yes`")
            }
            guard case .corrupted(let reason)? = error as? VaultError, reason.kind != .wrongKey, reason.kind != .keyMissing else { throw error }
            // Damage found by the cheap checks at open is damage all the same. The library's
            // verify of a vault that does not open scans its pages anyway (when the key is
            // right): the open-time finding then carries the page and table the scan located,
            // as the text of the finding names them, and whatever else the scan found follows.
            let full = try Vault.verify(at: copy.copy.database, keyProvider: keys, now: now)
            let findings = full.findings.map { finding in
                var named = finding
                named.detail = copy.originalPaths(in: finding.detail)
                return named
            }
            report = VerificationReport(pagesScanned: full.pagesScanned, findings: findings, elapsed: Date().timeIntervalSince(started))
            foundAtOpen = true
        }
        let record = evidence.requested ? CustodyRecord(command: "verify", ranAt: started, copy: copy, opened: true) : nil
        if options.json {
            guard case .object(var members) = report.json else { return 1 }
            members["vault"] = .string(options.path)
            members["stage"] = .string(foundAtOpen ? "open" : "scan")
            // The text's "checked at": the time the checks judged against (--now or the clock).
            members["checkedAt"] = .time(now)
            if let record { members["evidence"] = record.json }
            console.line(JSONValue.object(members).rendered())
        } else {
            printText(report, foundAtOpen: foundAtOpen, now: now, console: console)
            if let record {
                console.line()
                record.print(console)
            }
        }
        return report.intact ? 0 : 1
    }

    private func printText(_ report: VerificationReport, foundAtOpen: Bool, now: Date, console: Console) {
        var table = TextTable()
        table.add("vault", TextTable.Cell(options.path))
        table.add("checked at", TextTable.Cell(TimeFormat.iso(now)))
        table.add(
            "result",
            report.intact
                ? TextTable.Cell("intact", .boldGreen)
                : TextTable.Cell("damaged: \(report.findings.count) finding(s)", .boldRed))
        table.add(
            "pages scanned",
            TextTable.Cell(
                !foundAtOpen
                    ? String(report.pagesScanned)
                    : report.pagesScanned == 0
                        ? "0 (the vault did not open)"
                        : "\(report.pagesScanned) (the vault did not open; its pages were scanned all the same)"))
        table.add("elapsed", TextTable.Cell(String(format: "%.1f ms", report.elapsed * 1000)))
        table.print(console)
        guard !report.findings.isEmpty else { return }
        console.line()
        var findings = TextTable(indent: 2)
        findings.add(TextTable.Cell("KIND", .bold), TextTable.Cell("WHERE", .bold), TextTable.Cell("DETAIL", .bold))
        for (index, finding) in report.findings.enumerated() {
            var place: [String] = []
            if let page = finding.page { place.append("page \(page)") }
            if let table = finding.table { place.append(table) }
            if let session = finding.sessionID { place.append("session \(session.prefix(12))") }
            // Only the first finding is the open's; the rest come from the scan after it.
            if foundAtOpen && index == 0 { place.append("at open") }
            findings.add(
                TextTable.Cell(finding.kind.rawValue, .red), TextTable.Cell(place.isEmpty ? "-" : place.joined(separator: ", ")),
                TextTable.Cell(Console.oneLine(finding.detail)))
        }
        findings.print(console)
    }
}
