import ArgumentParser
import Foundation
import SessionVault

/// `sessionvault resume`: which way the app would go now, and for `corrupted` the recovery.
struct ResumeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resume",
        abstract: "Print the resume path (valid, expired, missing, corrupted, unavailable) and its reason.",
        discussion: """
            For corrupted it recovers as an app would: wipes the vault and its key and leaves a \
            tombstone saying why (not with --dry-run). It never wipes on a wrong key, a key it \
            cannot find, or a file with no vault header and no tombstone: those may be a mistyped \
            path, so it prints a hint to use `wipe --yes --without-key` instead. --dry-run decides \
            on a private copy of the files, so nothing of the vault changes. Exit status 0 when a \
            path was decided and acted on; 2 when the key does not open the vault and 3 when the \
            recovery was withheld for another reason (the path is printed all the same). The text \
            ends with what the app does on that path. With --json: {"path", "reason", "session" \
            (or null), "vault"}, plus "detail", "recovered", "tombstone", "next", "hint", "dryRun" \
            and "evidence" where they apply.
            """ + ExitStatus.help)

    @OptionGroup var options: VaultOptions

    func validate() throws {
        try options.requireKey()
        // Without --dry-run resume may recover (wipe): a custody record would certify files it changed.
        if evidence.requested && !dryRun { throw ValidationError("--evidence needs --dry-run") }
    }

    @OptionGroup var clock: ClockOptions

    @Flag(name: .customLong("dry-run"), help: "Decide and print the path, but change nothing (no recovery wipe).")
    var dryRun = false

    @OptionGroup var evidence: EvidenceOptions

    /// What happened after a `corrupted` decision.
    enum Recovery {
        case notNeeded
        case skippedForDryRun
        /// Not wiped because the file is not proven to be this vault; the hint says what to do.
        case withheld(String)
        case wiped(Tombstone?, ResumePath)
    }

    func run() async throws {
        let console = Console()
        try await CLIFailure.reporting(console, json: options.json) {
            let now = clock.now
            var location = try options.location()
            let keys = try options.keyProvider()
            var path: ResumePath
            var record: CustodyRecord?
            if dryRun {
                // A dry run decides on a private copy: opening the original could checkpoint its
                // log or migrate its schema, which is a change (see `EvidenceCopy`).
                let ranAt = Date()
                path = try await options.withEvidenceCopy { copy in
                    let decided = Self.naming(try await decide(location: location, keys: keys, now: now, database: copy.copy.database), copy)
                    if evidence.requested { record = CustodyRecord(command: "resume --dry-run", ranAt: ranAt, copy: copy, opened: location.databaseExists) }
                    return decided
                }
            } else {
                path = try await decide(location: location, keys: keys, now: now, database: options.path)
            }
            var recovery = Recovery.notNeeded
            var attempt = 1
            while case .corrupted(let reason) = path {
                if let withheld = Self.withholdReason(reason, location: location, keys: keys, options: options) {
                    recovery = .withheld(withheld)
                } else if dryRun {
                    recovery = .skippedForDryRun
                } else {
                    do {
                        try Vault.recover(at: options.path, keyProvider: keys, reason: reason, now: now)
                    } catch VaultError.changedElsewhere(let detail) {
                        // Another process recovered or replaced the vault since the decision:
                        // nothing was wiped. Decide again on what is there now, as the app would.
                        guard attempt < 3 else { throw CLIFailure("not recovered: the vault kept changing (\(detail)); retry") }
                        attempt += 1
                        location = try options.location()
                        path = try await decide(location: location, keys: keys, now: now, database: options.path)
                        continue
                    }
                    // A wipe that finished one cut short kept its tombstone: its reason is the first.
                    let kind = Vault.tombstone(at: options.path)?.reason ?? reason.kind
                    recovery = .wiped(
                        Vault.tombstone(at: options.path),
                        ResumeDecision.decide(.empty(.wipedAfterCorruption(kind)), now: now, policy: ResumePolicy()))
                }
                break
            }
            if options.json {
                printJSON(path, recovery, record, console: console)
            } else {
                printText(path, recovery, now: now, console: console)
                if let record {
                    console.line()
                    record.print(console)
                }
            }
            // The path is printed either way; the status keeps the one table: a key that does not
            // open the vault is 2, a recovery withheld for another reason is "refused" (3).
            if case .withheld = recovery, case .corrupted(let reason) = path {
                return reason.kind == .wrongKey || reason.kind == .keyMissing ? CLIFailure.keyProblem : CLIFailure.refused
            }
            return 0
        }
    }

    /// The library's decision. A vault file that does not exist is `missing` (why: the tombstone,
    /// or never signed in); nothing is created.
    private func decide(location: VaultLocation, keys: any KeyProvider, now: Date, database: String) async throws -> ResumePath {
        guard location.databaseExists else {
            let reason: MissingReason = location.tombstone.map { .wipedAfterCorruption($0.reason) } ?? .neverSignedIn
            return ResumeDecision.decide(.empty(reason), now: now, policy: ResumePolicy())
        }
        let vault: Vault
        do {
            vault = try Vault.open(at: database, keyProvider: keys, clock: { now }, create: false)
        } catch {
            switch error {
            case .corrupted(let reason): return ResumeDecision.decide(.corrupted(reason), now: now, policy: ResumePolicy())
            case .unavailable(let retryAfter, let detail):
                return ResumeDecision.decide(.unavailable(retryAfter: retryAfter, detail: detail), now: now, policy: ResumePolicy())
            default: throw error
            }
        }
        do {
            let path = ResumeDecision.decide(try await vault.snapshot(), now: now, policy: vault.policy)
            await vault.close()
            return path
        } catch {
            await vault.close()
            if case .corrupted(var reason) = error {
                // Found by the open vault: the recovery wipe then acts only on the file it had
                // open (and its key), never on a vault another process put there since.
                if reason.diagnosed == nil { reason.diagnosed = await vault.ownFilesDiagnosis() }
                return ResumeDecision.decide(.corrupted(reason), now: now, policy: ResumePolicy())
            }
            throw error
        }
    }

    /// A decision made on the private copy, with the copy's paths in a corruption detail
    /// replaced by the original's.
    private static func naming(_ path: ResumePath, _ copy: EvidenceCopy) -> ResumePath {
        guard case .corrupted(let reason) = path else { return path }
        return .corrupted(CorruptionReason(reason.kind, copy.originalPaths(in: reason.detail)))
    }

    /// Why the CLI will not wipe on its own, or nil when it may. A wipe destroys the key it was
    /// given: only proceed when the file is proven to be this vault (header present, or a
    /// tombstone left by an interrupted wipe) and the key was not simply wrong or absent.
    /// A key file of zeros left by an interrupted wipe (`KeyFileProvider.holdsShreddedKey`) is
    /// no mistyped path: that wipe had begun on this vault, and recovering finishes it.
    static func withholdReason(_ reason: CorruptionReason, location: VaultLocation, keys: any KeyProvider, options: VaultOptions) -> String? {
        let wipe =
            "if the vault really is lost, run `sessionvault wipe --yes --without-key --vault \(options.path) \(options.keyFile.map { "--key-file \($0)" } ?? "--passphrase-stdin")`"
        switch reason.kind {
        case .wrongKey:
            return "not wiped: the key does not match this vault (a different key file or passphrase?); \(wipe)"
        case .keyMissing where location.tombstone == nil && (keys as? KeyFileProvider)?.holdsShreddedKey() != true:
            return "not wiped: no key was found for this vault (a mistyped --key-file?); \(wipe)"
        case .headerDamaged where !location.headerExists && location.tombstone == nil:
            return "not wiped: \(options.path) has no vault header beside it and may not be a vault; \(wipe)"
        default:
            return nil
        }
    }

    private func printJSON(_ path: ResumePath, _ recovery: Recovery, _ record: CustodyRecord?, console: Console) {
        guard case .object(var members) = path.json else { return }
        if let record { members["evidence"] = record.json }
        members["vault"] = .string(options.path)
        members["tombstone"] = Vault.tombstone(at: options.path)?.json ?? .null
        switch recovery {
        case .notNeeded:
            members["recovered"] = .bool(false)
        case .skippedForDryRun:
            members["recovered"] = .bool(false)
            members["dryRun"] = .bool(true)
        case .withheld(let hint):
            members["recovered"] = .bool(false)
            members["hint"] = .string(hint)
        case .wiped(let tombstone, let next):
            members["recovered"] = .bool(true)
            if let tombstone { members["tombstone"] = tombstone.json }
            members["next"] = .object(["path": .string(next.name), "reason": .string(next.reasonText)])
        }
        console.line(JSONValue.object(members).rendered())
    }

    private func printText(_ path: ResumePath, _ recovery: Recovery, now: Date, console: Console) {
        var table = TextTable()
        table.add("path", TextTable.Cell(path.name, path.style))
        if let reason = path.reasonText { table.add("reason", TextTable.Cell(reason)) }
        if case .corrupted(let reason) = path { table.add("detail", TextTable.Cell(Console.oneLine(reason.detail))) }
        if case .unavailable(let retryAfter, _) = path { table.add("retry after", TextTable.Cell(String(format: "%g s", retryAfter))) }
        if let session = path.session {
            for row in session.rows(now: now) { table.add(row) }
        }
        if case .missing(.wipedAfterCorruption) = path, let tombstone = Vault.tombstone(at: options.path) {
            table.add("tombstone", TextTable.Cell(tombstone.summary, .yellow))
        }
        if case .withheld = recovery {} else { table.add("app", TextTable.Cell(path.advice, .dim)) }
        switch recovery {
        case .notNeeded:
            break
        case .skippedForDryRun:
            table.add("recovery", TextTable.Cell("skipped (--dry-run); without it the vault and its key are wiped and a tombstone written", .yellow))
        case .withheld(let hint):
            table.add("recovery", TextTable.Cell(hint, .yellow))
        case .wiped(_, let next):
            table.add("recovery", TextTable.Cell("wiped the database, its sidecars and its key; tombstone written", .yellow))
            table.add("now", TextTable.Cell(next.summary, next.style))
        }
        table.print(console)
    }
}
