import Foundation
import SessionVaultTestSupport
@testable import SessionVault

/// The disk's faults as history steps: a folder a process can only read, and a disk with no
/// room left.
extension HistoryRun {
    // MARK: A read-only folder

    /// A process opens the vault through a read-only bind mount of its folder (a volume
    /// remounted read-only, a sandbox that denies writes) and asks for a background token. It
    /// may answer with the token when none is due, or "unavailable"; it never answers that there
    /// is no session while there is one, never sends a refresh it could not store, never
    /// crashes, and the vault's files stay as they were.
    func readOnlyProcess(_ index: Int) async -> String {
        guard FileManager.default.fileExists(atPath: path) else { return "no vault yet" }
        let mountPoint = directory.file("read-only-\(index)")
        do {
            try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
            let bind = try await Shell.run("/bin/mount", ["--bind", vaultDirectory, mountPoint])
            guard bind.status == 0 else { throw MountFailed(detail: bind.stderr) }
            let readOnly = try await Shell.run("/bin/mount", ["-o", "remount,bind,ro", mountPoint])
            guard readOnly.status == 0 else {
                _ = try? await Shell.run("/bin/umount", [mountPoint])
                throw MountFailed(detail: readOnly.stderr)
            }
        } catch {
            fail(index, "the read-only mount could not be made: \(error)")
            return "failed"
        }
        let before = server.refreshRequests
        let digests = await vaultFileDigests()
        let now = device.now
        let path = model.path(await view(0), now: now, forUser: false)
        var answer = "no answer"
        var status: Int32?
        do {
            let child = try TestHostProcess(
                [
                    "background-at", mountPoint + "/vault.db", mountPoint + "/vault.key",
                    server.baseURL.absoluteString, "\(now.timeIntervalSince1970)"
                ], scratch: directory)
            status = await child.finish(timeout: 60)
            answer = child.lines.last ?? ""
            texts.append(child.output)
        } catch {
            fail(index, "the read-only process did not start: \(error)")
        }
        _ = try? await Shell.run("/bin/umount", [mountPoint])
        let sent = server.refreshRequests - before
        if status != 0 { fail(index, "the read-only process ended with \(status.map { "status \($0)" } ?? "a hang"): \(answer)") }
        if sent != 0 { fail(index, "a process that cannot write sent \(sent) refresh requests (their rotation could never be stored)") }
        if await vaultFileDigests() != digests { fail(index, "the vault's files changed while only a read-only process used them") }
        if model.pendingDamage == nil {
            switch (answer, model.family) {
            case ("token", _?):
                if case .valid = path {} else { fail(index, "the read-only process handed out a token the model says is due for a refresh") }
            case (let text, _?) where text.hasPrefix("ended"):
                fail(index, "the read-only process answered \(text) while the vault holds a session")
            case (let text, nil) where text == "token":
                fail(index, "the read-only process handed out a token while the vault holds no session")
            case ("locked", _):
                fail(index, "a background call answered locked")
            default: break
            }
        }
        return "answered \(answer.split(separator: " ").first.map(String.init) ?? "nothing")"
    }

    struct MountFailed: Error { let detail: String }

    // MARK: A key provider of another identity

    /// A process opens the vault with another key file (missing, or 56 zero bytes there): the
    /// vault names its own key, so the other one's absence proves nothing. It answers
    /// unavailable naming both keys, sends nothing, and no file of the vault changes (the vault
    /// is never wiped for it, damaged or not).
    func otherKeyProvider(_ index: Int, zeroFile: Bool) async -> String {
        guard FileManager.default.fileExists(atPath: path) else { return "no vault yet" }
        let other = vaultDirectory + "/other.key"
        if zeroFile {
            _ = FileManager.default.createFile(atPath: other, contents: Data(repeating: 0, count: 56), attributes: [.posixPermissions: 0o600])
        }
        defer { try? FileManager.default.removeItem(atPath: other) }
        let before = server.refreshRequests
        let digests = await vaultFileDigests()
        var answer = "no answer"
        do {
            let child = try TestHostProcess(
                ["background-at", path, other, server.baseURL.absoluteString, "\(device.now.timeIntervalSince1970)"], scratch: directory)
            let status = await child.finish(timeout: 60)
            answer = child.lines.last ?? ""
            texts.append(child.output)
            if status != 0 { fail(index, "the process with another key ended with \(status.map { "status \($0)" } ?? "a hang"): \(answer)") }
        } catch {
            fail(index, "the process with another key did not start: \(error)")
        }
        if server.refreshRequests != before { fail(index, "a process with another key sent a refresh request") }
        if await vaultFileDigests() != digests { fail(index, "the vault's files changed when a provider of another identity opened it") }
        if !answer.hasPrefix("unavailable") || !answer.contains("other.key") {
            fail(index, "a provider of another identity answered \(answer), not unavailable naming it")
        }
        return "answered \(answer.split(separator: " ").first.map(String.init) ?? "nothing")"
    }

    // MARK: A full disk

    /// The clock moves to the token's due time; the disk fills until `free` bytes are left;
    /// `actor` asks for a token; the disk is freed
    /// and the same actor asks again. On the full disk the call either answers as the model says
    /// or refuses for the disk before it sends anything (the model's account then stays as it
    /// was); a rotation the disk could not take is kept in memory and stored by the second call
    /// without another request. The invariants then find the newest pair in the vault.
    func diskFull(_ index: Int, actor: Int, free: Int) async -> String {
        guard let disk else {
            fail(index, "the history has no small file system of its own")
            return "failed"
        }
        let forUser = actor == 0
        // The fault is about the refresh and its rotation: the clock moves to the due time.
        let moved = await advanceToDue()
        let before = server.refreshRequests
        let saved = model
        let want = tokenCallExpectation(await view(actor), actor: actor, forUser: forUser)
        do { try disk.leave(free) } catch {
            fail(index, "the disk could not be filled: \(error)")
            return "failed"
        }
        let outcome = forUser ? await managers[0].freshAccessToken() : await managers[actor].backgroundAccessToken()
        disk.freeAll()
        var note: String
        if case .unavailable(_, let detail) = outcome {
            texts.append(outcome.description)
            let sent = server.refreshRequests - before
            if sent != 0 { fail(index, "answered unavailable on a full disk after sending \(sent) refresh requests") }
            // "storage full", or a recovery's wipe that could not write its tombstone (ENOSPC):
            // nothing was destroyed, and the call after it recovers.
            if !detail.contains("storage") && !detail.contains("No space left") {
                fail(index, "answered unavailable on a full disk for another reason: \(detail)")
            }
            model = saved
            note = "refused for the disk"
        } else {
            note = check(index, classify(outcome, actor: actor), want, before: before)
        }
        let kept = await managers[actor].unsavedRotation != nil
        let beforeAgain = server.refreshRequests
        let wantAgain: (HistoryModel.Expected, Int) =
            kept
            ? (.token, 0)
            : tokenCallExpectation(await view(actor), actor: actor, forUser: forUser)
        let again = forUser ? await managers[0].freshAccessToken() : await managers[actor].backgroundAccessToken()
        let noteAgain = check(index, classify(again, actor: actor), wantAgain, before: beforeAgain)
        if await managers[actor].unsavedRotation != nil { fail(index, "a rotation is still kept in memory after the disk had room again") }
        return "\(moved)\(note)\(kept ? " (rotation kept in memory)" : ""); again: \(noteAgain)"
    }
}
