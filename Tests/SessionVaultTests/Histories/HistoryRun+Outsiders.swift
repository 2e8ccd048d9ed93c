import Foundation
import SessionVaultTestSupport
@testable import SessionVault
#if canImport(Glibc)
import Glibc
#endif

/// The steps in which another process acts on the vault while the history's actors go on: one
/// stopped while it holds the refresh lock, one killed inside a write, and the CLI reading the
/// vault as an investigator does.
extension HistoryRun {
    // MARK: A stopped process holding the refresh lock

    /// An extension process starts a due refresh; once the request reached the server it is
    /// SIGSTOPped (holding the refresh lock, the server's answer unread in its socket) while
    /// `inner` runs in the other actors: none may send the token meanwhile, and a sign-in or
    /// sign-out there must survive the stopped process's late rotation. Then it continues.
    func stoppedHolder(_ index: Int, inner: HistoryStep) async -> String {
        server.clearFaults()
        let before = server.refreshRequests
        let moved = await advanceToDue()
        let now = device.now
        let path = model.path(await view(0), now: now, forUser: false)
        guard case .due(needsUser: false) = path, let family = model.family, server.isLive(family: family), !model.lostRotation,
            !model.deferred(actor: 3, now: now)
        else {
            return moved + "nothing to hold; " + (await perform(inner, index: index))
        }
        let arguments = ["background-at", self.path, keyPath, server.baseURL.absoluteString, "\(now.timeIntervalSince1970)"]
        guard let (child, gate) = await startHeldRefresh(index, arguments, before: before) else { return "failed" }
        if !(await child.stop()) { fail(index, "the extension process did not stop") }
        // The server rotated the family when the request arrived; its answer now waits in a
        // socket the stopped process does not read.
        gate.open()
        let want = resolveRefresh(3)
        model.heldRotation = true
        let innerNote = await perform(inner, index: index)
        model.heldRotation = false
        // After a sign-in, the continued process finds its rotation refused and decides again
        // on the new session, at its own clock, as a new background call would.
        var again: (HistoryModel.Expected, Int)?
        if case .signIn = inner { again = expected(for: model.path(await view(0), now: now, forUser: false), actor: 3) }
        let afterInner = server.refreshRequests
        kill(child.processIdentifier, SIGCONT)
        let got = await childAnswer(index, child)
        let sent = server.refreshRequests - afterInner
        let what = got.map { "\($0)" } ?? "unavailable"
        switch inner {
        case .signIn:
            if let again {
                if got != again.0 { fail(index, "the continued process answered \(what) on the session that replaced its own, the model expected \(again.0)") }
                if sent != again.1 { fail(index, "the continued process sent \(sent) refresh requests for the new session, the model expected \(again.1)") }
            }
        case .signOut:
            if got != .ended { fail(index, "the continued process answered \(what) after its session was signed out") }
            if sent != 0 { fail(index, "the continued process sent \(sent) refresh requests after its session was signed out") }
            if server.isLive(family: family) {
                fail(index, "the session signed out while a stopped process held its refresh is still live at the server")
            }
        default:
            if got != want.0 { fail(index, "the continued process answered \(what), the model expected \(want.0)") }
            if sent != 0 { fail(index, "the continued process sent \(sent) more refresh requests") }
        }
        return moved + "stopped; [\(innerNote)]; continued: \(what)"
    }

    // MARK: A kill inside a write

    /// The recorder of the crash-state explorer (Tests/CrashStates/interposer.c), compiled once
    /// per test process; here only its CRASH_STATES_KILL_AT is used.
    static let interposer = Task<String, any Error> {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("CrashStates/interposer.c").path
        let scratch = TemporaryDirectory("sessionvault-history-interposer")
        let library = scratch.file("interposer.so")
        let result = try await Shell.run("/usr/bin/env", ["cc", "-shared", "-fPIC", "-O1", "-o", library, source, "-ldl", "-lpthread"])
        guard result.status == 0 else { throw InterposerBuildFailed(detail: result.stderr) }
        // `TemporaryDirectory` removes its folder when the test process exits, not before.
        return library
    }

    struct InterposerBuildFailed: Error { let detail: String }

    /// Whether this test process runs under a sanitizer, whose interceptors of write and fsync
    /// come before a preloaded library: the kill would not see those calls.
    static var sanitized: Bool {
        guard let program = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(program) }
        return dlsym(program, "__asan_init") != nil || dlsym(program, "__tsan_init") != nil
    }

    /// An extension process refreshes (or stores a sign-in) and dies right after its `at`-th
    /// durable call on the vault's files. Whatever that call was, the vault must open as one of
    /// the two states around it: the rotation (sign-in) stored, or not stored with the server's
    /// rotation then lost (the next refresh is the reuse that finds out). Nothing is wiped.
    func killedInsideWrite(_ index: Int, signIn: Bool, at: Int) async -> String {
        guard model.pendingDamage == nil else { return "skipped: the vault is damaged (its recovery is another step's)" }
        guard !Self.sanitized else { return "skipped: a sanitizer's interceptors hide the writes from the kill" }
        server.clearFaults()
        let library: String
        do { library = try await Self.interposer.value } catch {
            fail(index, "the interposer could not be built: \(error)")
            return "failed"
        }
        let before = server.refreshRequests
        var moved = ""
        var arguments: [String]
        var newFamily: Int?
        var now = device.now
        if signIn {
            let (family, json) = server.signIn()
            newFamily = family
            let file = directory.file("sign-in-\(index).json")
            _ = FileManager.default.createFile(atPath: file, contents: Data(json.utf8), attributes: [.posixPermissions: 0o600])
            arguments = ["store-json-at", path, keyPath, file, "\(now.timeIntervalSince1970)"]
        } else {
            moved = await advanceToDue()
            now = device.now
            let due = model.path(await view(0), now: now, forUser: false)
            guard case .due(needsUser: false) = due, let family = model.family, server.isLive(family: family), !model.lostRotation,
                !model.deferred(actor: 3, now: now)
            else { return moved + "nothing to refresh" }
            arguments = ["background-at", path, keyPath, server.baseURL.absoluteString, "\(now.timeIntervalSince1970)"]
        }
        let watched = URL(fileURLWithPath: vaultDirectory).resolvingSymlinksInPath().path
        let environment = [
            "LD_PRELOAD": library, "CRASH_STATES_DIR": watched, "CRASH_STATES_LOG": directory.file("calls-\(index).log"),
            "CRASH_STATES_KILL_AT": "\(at)"
        ]
        let child: TestHostProcess
        do {
            child = try TestHostProcess(arguments, scratch: directory, environment: environment)
        } catch {
            fail(index, "the extension process did not start: \(error)")
            return "failed"
        }
        let status = await child.finish(timeout: 60)
        texts.append(child.output)
        let killed = child.crashed && status == SIGKILL
        if !killed && status != 0 {
            fail(index, "the extension process ended with \(status.map { "status \($0)" } ?? "a hang"): \(child.lines.last ?? "")")
            return "failed"
        }
        // What the vault holds now, read through the app's own connection.
        let vault: Vault
        do { vault = try await managers[0].vault } catch {
            fail(index, "the app cannot open the vault after a process died inside a write: \(error)")
            return "failed"
        }
        let access: Token? = (try? await vault.accessToken()) ?? nil
        let text = access?.withRevealedBytes { String(decoding: $0, as: UTF8.self) }
        let holder = text.flatMap { server.familyOf(token: $0) }
        if killed { model.tornWrite = true }
        let fate = killed ? "killed after call \(at)" : "ran to its end (\(Self.recordedCalls(in: directory.file("calls-\(index).log"))) calls)"
        if let newFamily {
            if holder == newFamily {
                model.family = newFamily
                model.receivedAt = now
                model.startFresh()
                model.wipeAllowed = nil
                model.lostRotation = false
                return "\(fate): the sign-in was stored"
            }
            if !killed { fail(index, "the sign-in process ran to its end but the vault does not hold its session") }
            return "\(fate): the sign-in was not stored"
        }
        let sent = server.refreshRequests - before
        guard sent > 0, let family = model.family, let truth = server.family(family) else {
            if !killed { fail(index, "the refreshing process ran to its end without a refresh request") }
            return moved + "\(fate) before its request"
        }
        if sent > 1 { fail(index, "one refresh sent \(sent) requests") }
        if text == truth.accessTokens.last {
            model.receivedAt = now
            return moved + "\(fate): the rotation was stored"
        }
        if !killed { fail(index, "the refreshing process ran to its end but its rotation is not in the vault") }
        if text != truth.accessTokens.dropLast().last { fail(index, "the vault holds neither the rotation nor the pair before it") }
        model.lostRotation = true
        return moved + "\(fate): the rotation was lost"
    }

    /// How many calls the interposer's log records (a header line "<op> <inode> <number>
    /// <length> <path>", then <length> bytes): how far a kill point may reach.
    static func recordedCalls(in log: String) -> Int {
        guard let bytes = FileManager.default.contents(atPath: log) else { return 0 }
        var count = 0, offset = bytes.startIndex
        while let newline = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) {
            let fields = String(decoding: bytes[offset..<newline], as: UTF8.self).split(separator: " ", maxSplits: 4)
            guard fields.count >= 4, let length = Int(fields[3]) else { break }
            count += 1
            offset = newline + 1 + length
            guard offset <= bytes.endIndex else { break }
        }
        return count
    }

    // MARK: The CLI as an investigator

    /// Copies the vault's folder to `destination` (a replay's evidence: HISTORY_KEEP), at the
    /// end of the run, by another process (see `vaultFileDigests`).
    func keepVault(at destination: String) async {
        try? FileManager.default.removeItem(atPath: destination)
        _ = try? await Shell.run("/bin/cp", ["-a", vaultDirectory, destination])
    }

    /// A digest of each of the vault's files, by name, taken by another process: a read in this
    /// process would close a descriptor of the database and so drop every POSIX lock SQLite holds
    /// on it here (the very defect `OpenDatabaseFiles` keeps the library from), and the next
    /// close elsewhere would delete the log under the open connections. Not the shared-memory
    /// index: the history's own connections write their read marks there whenever they read.
    func vaultFileDigests() async -> [String: String] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: vaultDirectory)) ?? []).filter { !$0.hasSuffix("-shm") }.sorted()
        guard !names.isEmpty, let result = try? await Shell.run("/usr/bin/sha256sum", names.map { vaultDirectory + "/" + $0 }) else { return [:] }
        var digests: [String: String] = [:]
        for line in result.stdout.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { continue }
            digests[URL(fileURLWithPath: String(parts[1]).trimmingCharacters(in: .whitespaces)).lastPathComponent] = String(parts[0])
        }
        return digests
    }

    /// `resume --dry-run`, `inspect` and `verify` on the live vault: no file of it changes, the
    /// path agrees with the model as far as the model can say (damaged, no session, a session),
    /// an intact vault verifies, and the outputs join the others checked for secrets.
    func forensicRead(_ index: Int) async -> String {
        guard let cli = BuiltExecutable.sessionvault.path else {
            fail(index, "the CLI was not built")
            return "failed"
        }
        // Every actor's vault open first: a manager opens (creates) its vault on first use, and
        // that must not land inside the read.
        for manager in managers { _ = try? await manager.vault }
        let before = await vaultFileDigests()
        let vaultArguments = ["--vault", path, "--key-file", keyPath]
        let results: [Shell.Result]
        do {
            results = [
                try await Shell.run(cli, ["resume", "--dry-run", "--json", "--now", "\(Int(device.now.timeIntervalSince1970))"] + vaultArguments),
                try await Shell.run(cli, ["inspect", "--json"] + vaultArguments),
                try await Shell.run(cli, ["verify"] + vaultArguments)
            ]
        } catch {
            fail(index, "the CLI did not run: \(error)")
            return "failed"
        }
        for result in results { texts += [result.stdout, result.stderr] }
        let after = await vaultFileDigests()
        if before != after {
            let changed = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted()
            fail(index, "the CLI's read changed the vault's files: \(changed.joined(separator: ", "))")
        }
        let evidence = ((try? JSONSerialization.jsonObject(with: Data(results[1].stdout.utf8))) as? [String: Any])?["evidence"] as? [String: Any]
        if let changed = evidence?["changedOriginals"] as? [Any], !changed.isEmpty {
            fail(index, "the CLI's custody record says it changed \(changed.count) original files")
        }
        let dry = results[0]
        let object = (try? JSONSerialization.jsonObject(with: Data(dry.stdout.utf8))) as? [String: Any]
        let reported = object?["path"] as? String ?? "error (status \(dry.status))"
        let databaseExists = FileManager.default.fileExists(atPath: path)
        if model.pendingDamage != nil {
            if reported != "corrupted" && databaseExists { fail(index, "the CLI reports \(reported) for a vault the history damaged") }
            if results[2].status == 0 { fail(index, "verify passed a vault the history damaged") }
        } else if model.tornWrite {
            // The copy may hold a transaction of the killed process that the live connections
            // never saw (see `HistoryModel.tornWrite`): only that the vault reads as ours.
            if reported != "valid" && reported != "expired" && reported != "missing" {
                fail(index, "the CLI reports \(reported) after a process was killed inside a write")
            }
        } else if model.family == nil {
            if databaseExists && reported != "missing" { fail(index, "the CLI reports \(reported), the model holds no session") }
        } else {
            if reported != "valid" && reported != "expired" { fail(index, "the CLI reports \(reported), the model holds a session") }
            if results[2].status != 0 { fail(index, "verify failed on an intact vault: \(results[2].stdout) \(results[2].stderr)") }
        }
        return "path \(reported), verify status \(results[2].status)"
    }
}
