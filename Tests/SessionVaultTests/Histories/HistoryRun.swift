import Foundation
import Logging
import SessionVaultTestSupport
@testable import SessionVault
import SessionVaultTesting

/// Runs one history against real vault files, real managers and a real HTTP server, and checks the
/// invariants after every step. Stops at the first violation; `violations` then says what broke and
/// at which step, never with a token's text.
final class HistoryRun {
    let seed: UInt64
    let steps: [HistoryStep]
    let directory = TemporaryDirectory("history")
    let device = ManualClock()
    let trueClock: ManualClock
    let server: HistoryServer
    var managers: [ResumeManager] = []
    /// Every manager the history made, the replaced ones too (their event feeds keep them alive
    /// and may keep a connection open): all of them stop before the files are damaged.
    var everyManager: [ResumeManager] = []
    let biometrics = ScriptedBiometricGate()
    let logs = RecordingLogHandler.Store()
    let events = RecordingLogHandler.Store()
    var eventTasks: [Task<Void, Never>] = []
    var texts: [String] = []
    /// Access tokens handed to each actor, newest last (for API calls with an older token).
    var handed: [[Token]] = [[], [], []]
    var model: HistoryModel
    /// The inode of the database the history damaged, until a recovery replaces it.
    var damagedFile: Int?
    /// The damage `damagedFile` carries.
    var pendingDamage: HistoryDamage?
    private(set) var violations: [String] = []
    private(set) var trace: [String] = []
    /// The family the vault held before the step being checked.
    private var familyBeforeStep: Int?
    /// How the history ended: requests the server saw and tokens it issued.
    private(set) var summary = ""

    /// The vault's own folder: nothing but its files (a child's log and output, the go files,
    /// sit beside it), so the kill inside a write counts only calls on the vault's files. On a
    /// small file system of its own when the history fills the disk.
    let vaultDirectory: String
    /// That small file system (a tmpfs), for the histories with a full disk.
    let disk: SmallFileSystem?
    var path: String { vaultDirectory + "/vault.db" }
    var keyPath: String { vaultDirectory + "/vault.key" }

    init(seed: UInt64, steps: [HistoryStep], lifetime: Int?) throws {
        self.seed = seed
        self.steps = steps
        trueClock = ManualClock(device.now)
        server = try HistoryServer(lifetime: lifetime, trueClock: trueClock, tag: String(seed, radix: 36))
        model = HistoryModel(lifetime: server.grantedLifetime)
        if steps.contains(where: { if case .diskFull = $0 { return true } else { return false } }) {
            let disk = try SmallFileSystem.mountNow(megabytes: 24)
            self.disk = disk
            vaultDirectory = disk.path + "/vault"
        } else {
            disk = nil
            vaultDirectory = directory.file("vault")
        }
        try FileManager.default.createDirectory(
            atPath: vaultDirectory, withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
        for actor in 0..<3 { managers.append(makeManager(actor)) }
    }

    /// The lifetime a seed's history uses: 60 s, 300 s, 3600 s or none stated.
    static func lifetime(forSeed seed: UInt64) -> Int? {
        var rng = SeededGenerator(seed: seed ^ 0x5EED)
        return [60, 300, 3600, nil][Int.random(in: 0..<4, using: &rng)]
    }

    /// A manager for `actor` (a process start).
    func makeManager(_ actor: Int) -> ResumeManager {
        var policy = ResumePolicy()
        policy.idleTimeout = HistoryModel.idleTimeout
        let store = logs
        let logger = Logger(label: "history.\(HistoryStep.name(actor))") { _ in RecordingLogHandler(store: store) }
        let manager = ResumeManager(
            path: path, keyProvider: KeyFileProvider(path: keyPath),
            refresher: GoTrueRefresher(baseURL: server.baseURL, apiKey: "anon-key", timeout: 5),
            biometrics: actor == 0 ? biometrics : nil, policy: policy, clock: device.function,
            logger: logger, refreshWaitLimit: 0.2, backoff: RetryBackoff(base: 0.01, cap: 0.1))
        everyManager.append(manager)
        let recorded = events
        eventTasks.append(
            Task {
                for await event in await manager.sessionEvents() { recorded.append(event.description) }
            })
        return manager
    }

    // MARK: Running

    func run() async -> [String] {
        defer { for task in eventTasks { task.cancel() } }
        defer { disk?.detach() }
        for (index, step) in steps.enumerated() {
            let before = server.refreshRequests
            familyBeforeStep = model.family
            model.endedByRefusalLimit = false
            let note = await perform(step, index: index)
            trace.append("\(index): \(step) -> \(note) [refresh requests +\(server.refreshRequests - before)]")
            if violations.isEmpty { await checkInvariants(index) }
            if !violations.isEmpty { return violations }
        }
        await checkNeverStuck()
        if violations.isEmpty { checkNoSecrets() }
        summary =
            "\(server.refreshRequests) refresh requests, \(server.refreshesAnswered) answered with new tokens, "
            + "\(server.faultAnswers) faults, \(server.logoutRequests) logouts"
        return violations
    }

    func fail(_ index: Int, _ text: String) {
        violations.append("step \(index) (\(steps.indices.contains(index) ? steps[index].description : "end")): \(text)")
    }

    /// What an actor's connection holds now: the inputs of its decision.
    func view(_ actor: Int) async -> HistoryModel.View? {
        guard let vault = try? await managers[actor].vault, let snapshot = try? await vault.snapshot(),
            case .session(let session, let wall, _) = snapshot
        else { return nil }
        model.vaultLastWallClock = wall
        return HistoryModel.View(
            accessReceivedAt: session.accessIssuedAt ?? session.issuedAt, lastActiveAt: session.lastActiveAt,
            lastWallClock: wall, refreshPending: session.refreshPendingSince != nil, biometric: session.biometricEnabled)
    }

    /// The outcome a due refresh by `actor` must have, with the requests it may send, and the
    /// model's account updated as the server will answer.
    /// - Parameter faultsBefore: answers the server gives before this refresh's (each meets a
    ///   queued fault first).
    func resolveRefresh(_ actor: Int, faultsBefore: Int = 0) -> (HistoryModel.Expected, Int) {
        let now = device.now
        // Another process holds the refresh lock (stopped inside its refresh): nobody else sends
        // the token; past the wait limit the answer is "offline".
        if model.heldRotation { return (.offline, 0) }
        if model.deferred(actor: actor, now: now) { return (.offline, 0) }
        guard let family = model.family else { return (.ended, 0) }
        if let fault = server.fault(at: faultsBefore) {
            if case .rateLimited(let retryAfter) = fault {
                // A later end already recorded stays, with its own wait.
                let end = now.addingTimeInterval(TimeInterval(retryAfter))
                if end >= (model.vaultNotBefore ?? .distantPast) {
                    model.vaultNotBefore = end
                    model.vaultAsked = TimeInterval(retryAfter)
                }
                model.actorRateLimit[actor] = (now, TimeInterval(retryAfter))
            }
            if case .unexplained = fault {
                // Recorded with its first time; past the limit after it, the session ends (a
                // clock moved back is no time passed).
                guard let since = model.refusedSince else {
                    model.refusedSince = now
                    return (.refused, 1)
                }
                if max(0, now.timeIntervalSince(since)) >= HistoryModel.refusalLimit {
                    model.family = nil
                    model.endedByRefusalLimit = true
                    return (.ended, 1)
                }
                return (.refused, 1)
            }
            return (.offline, 1)
        }
        guard server.isLive(family: family) else {
            model.family = nil
            return (.ended, 1)
        }
        if model.lostRotation {
            // The vault holds the refresh token a killed process spent: this request is the
            // reuse that finds it out, the server revokes the family, and the session ends.
            model.lostRotation = false
            model.allowedReuses += 1
            model.family = nil
            return (.ended, 1)
        }
        model.receivedAt = now
        model.vaultNotBefore = nil
        model.refusedSince = nil
        model.actorRateLimit[actor] = nil
        return (.token, 1)
    }

    /// What a token call (`freshAccessToken()` for the app, `backgroundAccessToken()` for an
    /// extension) must do: as its path says, except that a refresh ahead of expiry that the
    /// server fails (or a 429 holds back) hands out the live token.
    func tokenCallExpectation(_ view: HistoryModel.View?, actor: Int, forUser: Bool) -> (HistoryModel.Expected, Int) {
        let now = device.now
        let ahead = model.refreshingAhead(view, now: now, forUser: forUser)
        let want = expected(for: model.path(view, now: now, forUser: forUser), actor: actor)
        guard ahead, want.0 == .offline || want.0 == .refused else { return want }
        return (.token, want.1)
    }

    func expected(for path: HistoryModel.Path, actor: Int) -> (HistoryModel.Expected, Int) {
        switch path {
        case .ended:
            model.family = nil
            return (.ended, 0)
        case .locked, .due(needsUser: true): return (.locked, 0)
        case .valid: return (.token, 0)
        case .due(needsUser: false): return resolveRefresh(actor)
        }
    }

    /// What `resume()` on `actor` must do.
    func resumeExpectation(_ actor: Int, _ view: HistoryModel.View?) -> (HistoryModel.Expected, Int) {
        let now = device.now
        let path = model.path(view, now: now, forUser: true)
        if case .due(needsUser: true) = path, actor == 0, view?.biometric == true {
            model.reanchorOnUnlock(view, now: now)
            return expected(for: model.pathAfterUnlock(view, now: now), actor: actor)
        }
        return expected(for: path, actor: actor)
    }

    func classify(_ outcome: ResumeOutcome) -> HistoryModel.Expected? {
        texts.append(outcome.description)
        switch outcome {
        case .home: return .token
        case .login: return .ended
        case .locked: return .locked
        case .offline: return .offline
        case .renewalRefused: return .refused
        case .unavailable: return nil
        }
    }

    func classify(_ outcome: FreshTokenOutcome, actor: Int) -> HistoryModel.Expected? {
        texts.append(outcome.description)
        switch outcome {
        case .token(let token, _):
            handed[actor].append(token)
            return .token
        case .sessionEnded: return .ended
        case .locked: return .locked
        case .offline: return .offline
        case .renewalRefused: return .refused
        case .unavailable: return nil
        }
    }

    /// Compares a call's outcome and request count with the model's.
    func check(_ index: Int, _ got: HistoryModel.Expected?, _ want: (HistoryModel.Expected, Int), before: Int) -> String {
        let sent = server.refreshRequests - before
        guard let got else {
            fail(index, "answered unavailable (expected \(want.0)): \(texts.last ?? "")")
            return "unavailable"
        }
        if got != want.0 { fail(index, "answered \(got), the model expected \(want.0)") }
        if sent != want.1 { fail(index, "sent \(sent) refresh requests, the model expected \(want.1)") }
        return "\(got)"
    }

    func perform(_ step: HistoryStep, index: Int) async -> String {
        let before = server.refreshRequests
        let now = device.now
        switch step {
        case .launch(let actor):
            // The process before it ends: its connection closes with it.
            await managers[actor].openedVault?.close()
            managers[actor] = makeManager(actor)
            let view = await view(actor)
            if actor == 0 {
                let want = resumeExpectation(0, view)
                return check(index, classify(await managers[0].resume()), want, before: before)
            }
            let want = tokenCallExpectation(view, actor: actor, forUser: false)
            return check(index, classify(await managers[actor].backgroundAccessToken(), actor: actor), want, before: before)
        case .resume:
            let want = resumeExpectation(0, await view(0))
            return check(index, classify(await managers[0].resume()), want, before: before)
        case .resumeAfterUnlock:
            let unlocking = await view(0)
            model.reanchorOnUnlock(unlocking, now: now)
            let want = expected(for: model.pathAfterUnlock(unlocking, now: now), actor: 0)
            return check(index, classify(await managers[0].resumeAfterUnlock()), want, before: before)
        case .freshAccessToken:
            let want = tokenCallExpectation(await view(0), actor: 0, forUser: true)
            return check(index, classify(await managers[0].freshAccessToken(), actor: 0), want, before: before)
        case .backgroundAccessToken(let actor):
            let want = tokenCallExpectation(await view(actor), actor: actor, forUser: false)
            return check(index, classify(await managers[actor].backgroundAccessToken(), actor: actor), want, before: before)
        case .apiCall(let actor, let sent, let reply):
            return await apiCall(index, actor: actor, sent: sent, reply: reply)
        case .signIn:
            if let kind = model.pendingDamage {
                // What an app does when the vault cannot be opened: resume, which recovers.
                let outcome = await managers[0].resume()
                texts.append(outcome.description)
                if outcome != .login(reason: .wipedAfterCorruption(kind), showExpiredMessage: false) {
                    fail(index, "the launch before the sign-in answered \(outcome), not a login after a wipe for \(kind.rawValue)")
                }
                checkRecovered(index)
            }
            let (family, json) = server.signIn()
            do {
                let vault = try await managers[0].vault
                try await vault.store(try TokenResponse(json: Data(json.utf8)))
            } catch {
                fail(index, "the sign-in could not be stored: \(error)")
                return "failed"
            }
            model.family = family
            model.receivedAt = now
            model.startFresh()
            model.wipeAllowed = nil
            model.lostRotation = false
            // A live connection's commit: the log's index now holds all there is.
            model.tornWrite = false
            return "stored"
        case .signOut(let actor, let scope):
            return await signOut(index, actor: actor, scope: scope)
        case .biometric(let on):
            do {
                try await managers[0].vault.setBiometricUnlock(on, domainState: on ? [1, 2, 3] : nil)
            } catch {
                if case .corrupted = error, model.pendingDamage != nil { return "refused: corrupted" }
                fail(index, "biometric switch failed: \(error)")
            }
            return "set"
        case .touch:
            try? await managers[0].vault.touch()
            return "touched"
        case .clock(let seconds):
            device.advance(by: TimeInterval(seconds))
            if seconds > 0 { trueClock.advance(by: TimeInterval(seconds)) }
            return "moved"
        case .rateLimitBurst(let count, let retryAfter):
            server.enqueue(.rateLimited(retryAfter: retryAfter), count: count)
            return "queued"
        case .serverErrors(let count):
            server.enqueue(.serverError(status: 503), count: count)
            return "queued"
        case .proxyPages(let count):
            server.enqueue(.proxyPage, count: count)
            return "queued"
        case .unexplainedRefusals(let count):
            server.enqueue(.unexplained, count: count)
            return "queued"
        case .serverRevokes:
            if let family = model.family { server.revoke(family: family) }
            return "revoked"
        case .cancelDuringRefresh(let actor):
            return await cancelDuringRefresh(index, actor: actor)
        case .signOutDuringRefresh(let refresher, let signer):
            return await signOutDuringRefresh(index, refresher: refresher, signer: signer)
        case .processFault(let stop):
            return await processFault(index, stop: stop)
        case .damage(let damage):
            guard let done = await injectDamage(index, damage) else { return "nothing to damage" }
            return "damaged (\(done.kind.rawValue))"
        case .staleRecovery(let held, let recoverer, let damage):
            return await staleRecovery(index, held: held, recoverer: recoverer, damage: damage)
        case .stoppedHolder(let inner):
            return await stoppedHolder(index, inner: inner)
        case .killedInsideWrite(let signIn, let at):
            return await killedInsideWrite(index, signIn: signIn, at: at)
        case .forensicRead:
            return await forensicRead(index)
        case .readOnlyProcess:
            return await readOnlyProcess(index)
        case .otherKeyProvider(let zeroFile):
            return await otherKeyProvider(index, zeroFile: zeroFile)
        case .rekey:
            return await rekey(index)
        case .autoRefresh:
            return await autoRefresh(index)
        case .switchSubject(let subject):
            return await switchSubject(index, to: subject)
        case .verify(let actor):
            return await verify(index, actor: actor)
        case .diskFull(let actor, let free):
            return await diskFull(index, actor: actor, free: free)
        }
    }

    /// A step whose outcome the model does not follow through a lost rotation (a sign-out, the
    /// final settling) may spend the stale refresh token once: allowed, and the loss is over.
    func forgiveLostRotation() {
        guard model.lostRotation else { return }
        model.lostRotation = false
        model.allowedReuses += 1
    }

    // MARK: Processes

    /// An extension process asks for a token; inside its refresh (the request at the server, the
    /// answer held back) it is SIGKILLed, or SIGSTOPped, answered, and continued.
    func processFault(_ index: Int, stop: Bool) async -> String {
        server.clearFaults()
        let before = server.refreshRequests
        let moved = await advanceToDue()
        let now = device.now
        // The child is a process of its own: no 429 remembered in it (actor 3 has none).
        let seen = await view(0)
        let path = model.path(seen, now: now, forUser: false)
        let arguments = ["background-at", self.path, keyPath, server.baseURL.absoluteString, "\(now.timeIntervalSince1970)"]
        guard case .due(needsUser: false) = path, let family = model.family, !model.deferred(actor: 3, now: now) else {
            // Nothing to interrupt: it answers without a request; the process runs to its end.
            let want = tokenCallExpectation(seen, actor: 3, forUser: false)
            return moved + "ran: " + (await runChild(index, arguments, want: want, before: before) ?? "failed")
        }
        let live = server.isLive(family: family) && !model.lostRotation
        // The stopped process's answer, decided on the server's truth before its request
        // arrives: the server acts on the request at once (a reuse revokes the family then).
        let stopWant = stop ? resolveRefresh(3) : nil
        guard let (child, gate) = await startHeldRefresh(index, arguments, before: before) else { return "failed" }
        if let want = stopWant {
            if !(await child.stop()) { fail(index, "the extension process did not stop") }
            gate.open()
            kill(child.processIdentifier, SIGCONT)
            let got = await childAnswer(index, child)
            return moved + "stopped, continued: " + check(index, got, want, before: before)
        }
        child.sigkill()
        _ = await child.finish(timeout: 30)
        gate.open()
        // The server answered (a rotation when the family was live) into a closed socket.
        if live {
            model.lostRotation = true
        } else if model.lostRotation {
            // It sent the spent token again: a reuse the kill already entitled, which revoked
            // the family; the vault still holds the pair before the lost one.
            forgiveLostRotation()
            model.behindFamily = family
        }
        return moved + "killed inside its refresh"
    }

    /// A fault about a refresh: the clock moves on to the token's due time first (an extension
    /// woken by a push an hour later), at most an hour. The trace's note of the move.
    func advanceToDue() async -> String {
        guard model.family != nil, let view = await view(0), case .valid = model.path(view, now: device.now, forUser: false) else { return "" }
        let wait = min(3600, max(0, view.accessReceivedAt.addingTimeInterval(model.dueAfterReceipt).timeIntervalSince(device.now)).rounded(.up))
        device.advance(by: wait)
        trueClock.advance(by: wait)
        return "clock +\(Int(wait))s, "
    }

    /// Starts an extension process whose refresh the server holds: back once the request
    /// arrived (the process then holds the refresh lock), with the gate that lets the answer go.
    /// Nil, with the failure recorded, when it did not start or its request never came.
    func startHeldRefresh(_ index: Int, _ arguments: [String], before: Int) async -> (TestHostProcess, ResponseGate)? {
        let gate = ResponseGate()
        server.holdNextRefresh(gate)
        let child: TestHostProcess
        do {
            child = try TestHostProcess(arguments, scratch: directory)
        } catch {
            server.releaseHold()
            fail(index, "the extension process did not start: \(error)")
            return nil
        }
        guard await waitForRefreshRequest(after: before) else {
            gate.open()
            server.releaseHold()
            child.sigkill()
            _ = await child.finish(timeout: 30)
            fail(index, "the extension process's refresh never reached the server: \(child.output)")
            return nil
        }
        return (child, gate)
    }

    func runChild(_ index: Int, _ arguments: [String], want: (HistoryModel.Expected, Int), before: Int) async -> String? {
        do {
            let child = try TestHostProcess(arguments, scratch: directory)
            return check(index, await childAnswer(index, child), want, before: before)
        } catch {
            fail(index, "the extension process did not start: \(error)")
            return nil
        }
    }

    /// The outcome line of a child that runs to its end (bounded: one that hangs is killed).
    func childAnswer(_ index: Int, _ child: TestHostProcess) async -> HistoryModel.Expected? {
        let status = await child.finish(timeout: 60)
        let last = child.lines.last ?? ""
        texts.append(child.output)
        if status != 0 { fail(index, "the extension process ended with \(status.map { "status \($0)" } ?? "a hang"): \(last)") }
        if last == "token" { return .token }
        if last.hasPrefix("ended") { return .ended }
        if last == "locked" { return .locked }
        if last == "offline" { return .offline }
        if last == "renewalRefused" { return .refused }
        texts.append(last)
        return nil
    }

    // MARK: Damage

    /// Every actor stops (its vault closed: nothing is left in a write-ahead log), the files are
    /// damaged for real, and every actor starts again. Nil when there is no vault to damage yet.
    func injectDamage(_ index: Int, _ requested: HistoryDamage) async -> HistoryDamage? {
        for manager in everyManager { await manager.openedVault?.close() }
        defer { for actor in 0..<3 { managers[actor] = makeManager(actor) } }
        let files = VaultFiles(database: path)
        // Damaged already and not recovered: the same bytes flipped again would repair them.
        if model.pendingDamage != nil, let earlier = pendingDamage { return earlier }
        guard FileManager.default.fileExists(atPath: files.database), FileManager.default.fileExists(atPath: files.header) else { return nil }
        // With every connection closed the log was checkpointed into the database and removed;
        // one left over would hide the damage (a reader takes page 1 from it).
        if (FileIO.size(files.database + "-wal") ?? 0) > 0 {
            fail(index, "a write-ahead log is left after every actor closed its vault: the damage would not be read")
            return nil
        }
        // The sessions page is read by every launch only while it holds the current session.
        let damage = requested == .sessionsPage && model.family == nil ? .firstPage : requested
        do {
            try damage.apply(to: files, keyPath: keyPath, seed: seed &+ UInt64(index))
        } catch {
            fail(index, "the history could not damage the vault: \(error)")
            return nil
        }
        damagedFile = Self.fileNumber(files.database)
        pendingDamage = damage
        model.lostRotation = false
        model.family = nil
        model.receivedAt = nil
        model.pendingDamage = damage.kind
        model.wipeAllowed = damage.kind
        // New processes: no 429 remembered; the vault's record of one goes with the wipe.
        model.actorRateLimit = [:]
        model.vaultNotBefore = nil
        return damage
    }

    /// The inode of the file at `path`, nil when there is none.
    static func fileNumber(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.systemFileNumber] as? Int
    }

    /// After a call met the injected damage: the wipe happened and recorded why.
    func checkRecovered(_ index: Int) {
        guard let kind = model.pendingDamage else { return }
        guard let tombstone = Vault.tombstone(at: path) else {
            fail(index, "the damaged vault was answered as ended but no tombstone records why")
            return
        }
        if tombstone.reason != kind { fail(index, "the tombstone records \(tombstone.reason.rawValue), the history injected \(kind.rawValue)") }
        model.pendingDamage = nil
    }

    /// The stale-recovery race (a wipe decided on the old files must not delete the vault that
    /// replaced them) as a step: `held`, a process of its own (`VaultTestHost held-at`, on the
    /// history's clock), meets the damage and is held just before its wipe; `recoverer` recovers
    /// and the user signs in afresh; `held` goes on and must decide again on the new vault, leaving
    /// the new session alone. A process, not a task: a clock that blocks inside the library would
    /// block a thread of the shared pool the rest of the suite needs (two of them on two cores).
    func staleRecovery(_ index: Int, held: Int, recoverer: Int, damage: HistoryDamage) async -> String {
        let before = server.refreshRequests
        guard let done = await injectDamage(index, damage) else { return "nothing to damage" }
        let go = directory.file("go-\(index)")
        let late: TestHostProcess
        do {
            late = try TestHostProcess(
                ["held-at", path, keyPath, go, "\(device.now.timeIntervalSince1970)", held == 0 ? "resume" : "background"],
                scratch: directory)
        } catch {
            fail(index, "the held process did not start: \(error)")
            return "failed"
        }
        defer { _ = FileManager.default.createFile(atPath: go, contents: nil) }
        guard await late.waitFor("held", timeout: 60) else {
            _ = FileManager.default.createFile(atPath: go, contents: nil)
            _ = await late.finish(timeout: 30)
            fail(index, "\(HistoryStep.name(held)) never reached its recovery wipe: \(late.output)")
            return "not held"
        }
        // The other process recovers the same damage and the user signs in afresh.
        let recovered = recoverer == 0 ? classify(await managers[0].resume()) : classify(await managers[recoverer].backgroundAccessToken(), actor: recoverer)
        if recovered != .ended {
            fail(index, "\(HistoryStep.name(recoverer)) met \(done) and answered \(recovered.map { "\($0)" } ?? "unavailable"), not a login")
        }
        checkRecovered(index)
        let (family, json) = server.signIn()
        do {
            let vault = try await managers[recoverer].vault
            try await vault.store(try TokenResponse(json: Data(json.utf8)))
        } catch {
            fail(index, "the sign-in after the recovery could not be stored: \(error)")
            return "failed"
        }
        model.family = family
        model.receivedAt = device.now
        model.startFresh()
        model.wipeAllowed = nil
        model.lostRotation = false
        let view = await view(recoverer)
        let want = held == 0 ? resumeExpectation(0, view) : tokenCallExpectation(view, actor: 3, forUser: false)
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        let status = await late.finish(timeout: 60)
        let last = late.lines.last ?? ""
        texts.append(late.output)
        if status != 0 { fail(index, "the held process ended with \(status.map { "status \($0)" } ?? "a hang"): \(last)") }
        let got: HistoryModel.Expected?
        if last == "token" || last.hasPrefix("home") {
            got = .token
        } else if last.hasPrefix("ended") || last.hasPrefix("login") {
            got = .ended
        } else if last == "locked" {
            got = .locked
        } else if last.hasPrefix("offline") {
            got = .offline
        } else {
            got = nil
        }
        let note = "\(HistoryStep.name(held)) process went on: " + check(index, got, want, before: before)
        // The invariant this race is about, said plainly (the model's check above may stop first).
        if let tombstone = Vault.tombstone(at: path) {
            fail(
                index,
                "the late recovery wiped the vault that replaced the damaged one (tombstone: \(tombstone.reason.rawValue)): the session signed in after the recovery is lost"
            )
        }
        return note
    }

    func apiCall(_ index: Int, actor: Int, sent: HistoryStep.Sent, reply: HistoryStep.Reply) async -> String {
        let before = server.refreshRequests
        let pool = handed[actor]
        let pick: Token?
        switch sent {
        case .latest: pick = pool.last
        case .older(let n): pick = pool.count > n ? pool[pool.count - 1 - n] : pool.first
        }
        guard let token = pick else { return "no token to send" }
        let text = token.withRevealedBytes { String(decoding: $0, as: UTF8.self) }
        var body = #"{"code":401,"error_code":"SESSION_EXPIRED","message":"Session expired"}"#
        var challenge: String?
        switch (server.judge(accessToken: text), reply) {
        case (.live, .truth): return "200"
        case (.live, .sessionExpired):
            if let family = server.familyOf(token: text) { server.revoke(family: family) }
        case (.expired, .truth(let variant)):
            switch variant {
            case 0: body = #"{"error":"invalid_token","error_description":"The access token expired"}"#
            case 1: body = #"{"code":"PGRST301","message":"JWT expired"}"#
            default:
                body = "{}"
                challenge = #"Bearer realm="api", error="invalid_token", error_description="The access token expired""#
            }
        case (.expired, .sessionExpired), (.revoked, _), (.unknown, _): break
        }
        let endsSession = body.contains("SESSION_EXPIRED")
        // Bound: the 401 answers the token the vault holds now (the server's newest of the family).
        let bound = model.family.flatMap { server.family($0)?.accessTokens.dropLast(model.vaultBehind || model.heldRotation ? 1 : 0).last } == text
        let want: (HistoryModel.Expected, Int)
        if bound {
            if endsSession {
                model.family = nil
                want = (.ended, 0)
            } else {
                want = resolveRefresh(actor)
            }
        } else {
            want = resumeExpectation(actor, await view(actor))
        }
        guard let outcome = await managers[actor].handleAPIFailure(status: 401, body: Data(body.utf8), wwwAuthenticate: challenge, sentToken: token) else {
            fail(index, "a 401 was not taken for an authentication failure")
            return "nil"
        }
        return "401 \(bound ? "bound" : "late") " + check(index, classify(outcome), want, before: before)
    }

    /// Scope `others`: this device stays signed in. The logout goes out with a live access
    /// token taken as `freshAccessToken()` takes one; a token the server refuses as expired (the
    /// device's clock behind the server's) costs one more refresh and one more logout.
    func signOutOthers(_ index: Int, actor: Int) async -> String {
        let before = server.refreshRequests, logoutsBefore = server.logoutRequests
        let seen = await view(actor)
        var want = expected(for: model.path(seen, now: device.now, forUser: true), actor: actor)
        // A refresh ahead of expiry that the server failed hands out the live token it held: the
        // logout goes out with it, after the fault that refresh met (if it sent one).
        let failedAhead = (want.0 == .offline || want.0 == .refused) && model.refreshingAhead(seen, now: device.now, forUser: true)
        let spentFaults = failedAhead ? want.1 : 0
        if failedAhead { want.0 = .token }
        let held = try? await managers[actor].vault.accessToken()?.withRevealedBytes { String(decoding: $0, as: UTF8.self) }
        var wantServer: String, wantLogouts = 0
        switch want.0 {
        case .ended: wantServer = "noSession"
        case .locked, .offline, .refused: wantServer = "failed"
        case .token:
            wantLogouts = 1
            // A fault queued now meets the logout (a refresh that met one answered offline).
            if server.fault(at: spentFaults) != nil {
                wantServer = "failed"
            } else {
                switch want.1 == 1 && !failedAhead ? .live : server.judgeAsLogout(accessToken: held ?? "") {
                case .live: wantServer = "ended"
                case .revoked: wantServer = "alreadyEnded"
                case .unknown:
                    fail(index, "the vault holds an access token the server never issued")
                    return "unknown token"
                case .expired:
                    let again = resolveRefresh(actor, faultsBefore: spentFaults)
                    want.1 += again.1
                    switch again.0 {
                    case .token: (wantServer, wantLogouts) = ("ended", 2)
                    case .ended: wantServer = "noSession"
                    case .locked, .offline, .refused: wantServer = "accessTokenRejected"
                    }
                }
            }
        }
        let result: SignOutResult
        do {
            result = try await managers[actor].signOut(scope: .others)
        } catch {
            fail(index, "sign-out of the other sessions threw \(error)")
            return "failed"
        }
        texts.append("\(result)")
        let sent = server.refreshRequests - before, logouts = server.logoutRequests - logoutsBefore
        if result.server.code != wantServer { fail(index, "others answered \(result.server.code), the model expected \(wantServer)") }
        if sent != want.1 { fail(index, "others sent \(sent) refresh requests, the model expected \(want.1)") }
        if logouts != wantLogouts { fail(index, "others sent \(logouts) logouts, the model expected \(wantLogouts)") }
        if !result.serverSessionMayOutlive { fail(index, "others said this device's server session is gone") }
        if result.server == .ended, let family = model.family {
            if !server.isLive(family: family) { fail(index, "others ended this device's own server session") }
            if let other = server.allFamilies.indices.first(where: { $0 != family && server.isLive(family: $0) }) {
                fail(index, "others left family \(other) alive at the server")
            }
        }
        return "others \(result.server.code)"
    }

    func signOut(_ index: Int, actor: Int, scope: SignOutScope) async -> String {
        if scope == .others { return await signOutOthers(index, actor: actor) }
        forgiveLostRotation()
        let family = model.family
        model.family = nil
        let result: SignOutResult
        do {
            result = try await managers[actor].signOut(scope: scope)
        } catch {
            // A damaged vault cannot be signed out of; the app resumes, which recovers.
            if case .corrupted = error, model.pendingDamage != nil { return "refused: corrupted" }
            fail(index, "the local sign-out failed: \(error)")
            return "failed"
        }
        texts.append("\(result)")
        guard let family else {
            if result.server != .noSession { fail(index, "no session, but the server answer is \(result.server.code)") }
            return result.server.code
        }
        if server.isLive(family: family) && !result.serverSessionMayOutlive {
            fail(index, "sign-out answered \(result.server.code) (session gone) but the server still holds the session")
        }
        return result.server.code
    }

    func waitForRefreshRequest(after count: Int) async -> Bool {
        let end = Date().addingTimeInterval(10)
        while server.refreshRequests <= count && Date() < end { try? await Task.sleep(nanoseconds: 2_000_000) }
        return server.refreshRequests > count
    }

    func cancelDuringRefresh(_ index: Int, actor: Int) async -> String {
        let before = server.refreshRequests
        let want: (HistoryModel.Expected, Int) = model.family == nil ? (.ended, 0) : resolveRefresh(actor)
        if model.family == nil, want.0 == .ended { model.family = nil }
        let gate = ResponseGate()
        if want.1 == 1 { server.holdNextRefresh(gate) }
        let manager = managers[actor]
        let task = Task { await manager.refreshNow() }
        if want.1 == 1, !(await waitForRefreshRequest(after: before)) { fail(index, "the refresh never reached the server") }
        task.cancel()
        gate.open()
        server.releaseHold()
        return "cancelled " + check(index, classify(await task.value), want, before: before)
    }

    func signOutDuringRefresh(_ index: Int, refresher: Int, signer: Int) async -> String {
        guard let family = model.family, !model.deferred(actor: refresher, now: device.now) else {
            return await signOut(index, actor: signer, scope: .local)
        }
        server.clearFaults()
        forgiveLostRotation()
        let before = server.refreshRequests
        let gate = ResponseGate()
        server.holdNextRefresh(gate)
        let manager = managers[refresher]
        let task = Task { await manager.refreshNow() }
        guard await waitForRefreshRequest(after: before) else {
            gate.open()
            fail(index, "the refresh never reached the server")
            return "no request"
        }
        model.family = nil
        let result: SignOutResult
        do {
            result = try await managers[signer].signOut(scope: .local)
        } catch {
            gate.open()
            fail(index, "the local sign-out failed: \(error)")
            return "failed"
        }
        texts.append("\(result)")
        gate.open()
        let outcome = await task.value
        let got = classify(outcome)
        if !result.refreshWasInFlight { fail(index, "the sign-out did not say a refresh was in flight") }
        if got != .ended { fail(index, "the refresh that lost its session answered \(got.map { "\($0)" } ?? "unavailable")") }
        // The tokens issued while the sign-out ran are ended by whoever received them.
        if server.isLive(family: family) {
            fail(index, "the server still holds the session signed out during a refresh (sign-out said \(result.server.code))")
        }
        return "sign-out \(result.server.code), refresh \(got.map { "\($0)" } ?? "unavailable")"
    }

    // MARK: Invariants

    /// No session ends on a refresh's answer without the authorization server's verdict on its
    /// grant: when the step ended the family the vault held for a reason a refresh gives, the
    /// server no longer honours that family (revoked, or its reuse detected), or the model ended
    /// it for refusals past the refusal limit.
    func checkEndedOnlyOnAVerdict(_ index: Int, vault: Vault, session: Session?) async {
        guard let before = familyBeforeStep, session == nil, case .empty(let reason)? = try? await vault.snapshot() else { return }
        let refreshReasons: [MissingReason] = [.refreshRejected, .sessionExpired, .authRequired, .refreshInterrupted, .scopeRejected]
        guard refreshReasons.contains(reason), server.isLive(family: before), !model.endedByRefusalLimit else { return }
        fail(index, "the session ended (\(reason.code)) while the server still honours its grant: no verdict ended it")
    }

    func checkInvariants(_ index: Int) async {
        if server.reuses > model.allowedReuses {
            fail(
                index,
                "the server saw a refresh token used twice (family revoked by reuse)\(model.allowedReuses > 0 ? " beyond the \(model.allowedReuses) a killed refresh forced" : "")"
            )
        }
        if model.pendingDamage != nil {
            // Not recovered yet: the damaged database is still the one there, and nothing opens.
            if let damaged = damagedFile, damaged == Self.fileNumber(path) { return }
            checkRecovered(index)
        }
        if let tombstone = Vault.tombstone(at: path), model.wipeAllowed == nil {
            fail(
                index,
                model.family != nil
                    ? "a wipe (tombstone: \(tombstone.reason.rawValue)) destroyed the session signed in after the damage was recovered"
                    : "the vault was wiped (tombstone: \(tombstone.reason.rawValue), \(tombstone.detail)) although no damage was injected since the last sign-in"
            )
        }
        guard let vault = try? await managers[0].vault else {
            fail(index, "the app cannot open its vault")
            return
        }
        let session: Session? = (try? await vault.currentSession()) ?? nil
        await checkEndedOnlyOnAVerdict(index, vault: vault, session: session)
        switch (model.family, session) {
        case (nil, _?): fail(index, "the vault holds a session the model ended")
        case (let family?, nil):
            fail(index, "the vault holds no session, the model expects family \(family)")
        case (let family?, _?):
            guard let truth = server.family(family) else { return }
            let access: Token? = (try? await vault.accessToken()) ?? nil
            let text = access?.withRevealedBytes { String(decoding: $0, as: UTF8.self) }
            // After a killed refresh the server's newest pair was never stored.
            let newest = truth.accessTokens.count - 1 - (model.vaultBehind ? 1 : 0)
            if let text, let position = truth.accessTokens.firstIndex(of: text) {
                if position != newest {
                    fail(index, "the vault holds access token \(position) of \(truth.accessTokens.count) of its family, not the newest")
                }
            } else {
                fail(index, "the vault holds an access token not of the model's family \(family)")
            }
            if let view = await view(0), let receivedAt = model.receivedAt, view.accessReceivedAt != receivedAt {
                fail(index, "the stored receipt time is \(view.accessReceivedAt.timeIntervalSince(receivedAt)) s off the model's")
            }
        default: break
        }
    }

    /// After the faults stop, every actor reaches a token or a login within a few calls.
    func checkNeverStuck() async {
        server.clearFaults()
        forgiveLostRotation()
        let end = steps.count
        for actor in 0..<3 {
            var settled = false
            var answers: [String] = []
            for _ in 0..<4 where !settled {
                let outcome = actor == 0 ? await managers[0].freshAccessToken() : await managers[actor].backgroundAccessToken()
                texts.append(outcome.description)
                answers.append(outcome.description)
                switch outcome {
                case .token, .sessionEnded: settled = true
                case .locked: _ = await managers[0].resumeAfterUnlock()
                case .offline(let retryAfter), .renewalRefused(_, let retryAfter):
                    let wait = min(max(retryAfter, 1), 3600).rounded(.up)
                    device.advance(by: wait)
                    trueClock.advance(by: wait)
                case .unavailable(_, let detail): fail(end, "\(HistoryStep.name(actor)) unavailable after the faults stopped: \(detail)")
                }
            }
            if !settled && violations.isEmpty {
                fail(end, "\(HistoryStep.name(actor)) reached no token or login in four calls after the faults stopped: \(answers.joined(separator: "; "))")
            }
        }
        if server.reuses > model.allowedReuses { fail(end, "the server saw a refresh token used twice") }
    }

    /// No token, key or e-mail in any outcome, event or log line of any actor.
    func checkNoSecrets() {
        var secrets = server.allTokenTexts + [server.email]
        if let key = FileManager.default.contents(atPath: keyPath) {
            secrets.append(Hex.encode([UInt8](key)))
            if let text = String(data: key, encoding: .utf8), text.count >= 16 { secrets.append(text.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }
        let outputs = texts + events.all + logs.all
        for secret in secrets where !secret.isEmpty {
            if let line = outputs.firstIndex(where: { $0.contains(secret) }) {
                fail(
                    steps.count,
                    "a secret (\(secret.hasPrefix("rt-") ? "refresh token" : secret.hasPrefix("at-") ? "access token" : "key or e-mail")) appears in output line \(line)"
                )
                return
            }
        }
    }
}
