import Foundation
import SessionVault

/// The steps of `sessionvault demo`, on real files: a key file, a SQLCipher vault, a real
/// damaged byte. It uses the library as an app would and prints what each launch decides.
struct DemoTour {
    let directory: String
    let report: DemoReport
    let clock: Clock
    let start: Date

    var keyPath: String { PathText.join(directory, "vault.key") }
    var vaultPath: String { PathText.join(directory, "vault.db") }
    var keys: KeyFileProvider { KeyFileProvider(path: keyPath) }

    init(directory: String, report: DemoReport) {
        self.directory = directory
        self.report = report
        // Whole seconds, as the sample response's expires_at is: the stored expiries line up.
        start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        clock = Clock(start: start)
    }

    func run() async throws {
        try prepareDirectory()
        report.begin(directory: directory, keyFile: keyPath, vault: vaultPath, start: start)

        step(1, "Create a root key")
        do { try KeyFileProvider.create(at: keyPath) } catch { throw CLIFailure("\(keyPath): \(error)") }
        report.fact(
            "key file", "\(keyPath): 32 random bytes, mode 0600", key: "keyFile",
            .object(["path": .string(keyPath), "bytes": .int(32), "mode": .string("0600")]))

        step(2, "Sign in: store a Supabase GoTrue token response")
        let vault = try Vault.open(at: vaultPath, keyProvider: keys, clock: clock.function)
        let session = try await vault.store(try Self.sampleResponse(issuedAt: start))
        for row in session.rows(now: clock.now) where ["session", "subject", "refresh token", "access token"].contains(row[0].text) {
            report.fact(row[0].text, row[1].text, key: "session", session.json)
        }
        report.note("The tokens are sealed inside \(vaultPath); they are only ever shown as fingerprints.")

        step(3, "Launch the app right away")
        report.launch(try await vault.resumePath())

        step(4, "The user is active until +50 min, then opens the app at +61 min", at: start.addingTimeInterval(61 * 60))
        clock.set(start.addingTimeInterval(50 * 60))
        try await vault.touch()
        try await vault.flushActivity()
        report.fact("last active", TimeFormat.iso(clock.now), key: "lastActiveAt", .time(clock.now))
        clock.set(start.addingTimeInterval(61 * 60))
        report.launch(try await vault.resumePath())

        step(5, "The app is not opened for 31 days", at: start.addingTimeInterval(31 * 86_400))
        clock.set(start.addingTimeInterval(31 * 86_400))
        report.launch(try await vault.resumePath())
        await vault.close()

        step(6, "Damage one byte of \(vaultPath) and launch")
        let offset = try damageOneByte()
        report.fact(
            "damaged", "byte \(offset) (inside page 1) flipped", key: "damaged",
            .object(["file": .string(vaultPath), "offset": .int(offset), "page": .int(1)]))
        let corrupted: CorruptionReason
        do {
            let reopened = try Vault.open(at: vaultPath, keyProvider: keys, clock: clock.function, create: false)
            await reopened.close()
            throw CLIFailure("the damaged vault opened; the demo expected it to be refused")
        } catch let error as VaultError {
            guard case .corrupted(let reason) = error else { throw error }
            corrupted = reason
        }
        report.launch(ResumeDecision.decide(.corrupted(corrupted), now: clock.now, policy: ResumePolicy()))

        step(7, "Recover: wipe the vault and its key, leave a tombstone")
        try Vault.recover(at: vaultPath, keyProvider: keys, reason: corrupted, now: clock.now)
        let deleted = ["vault.db", "vault.db-wal", "vault.db-shm", "vault.db-header", "vault.key"]
        report.fact(
            "deleted", "vault.db, its -wal, -shm and -header, and vault.key (crypto-shred)", key: "deleted",
            .array(deleted.map { .string($0) }))
        if let tombstone = Vault.tombstone(at: vaultPath) {
            report.fact("tombstone", "\(vaultPath)-tombstone: \(tombstone.reason.rawValue), no secrets", key: "tombstone", tombstone.json)
        }

        step(8, "Next launch: the app opens the vault again (a fresh, empty one)")
        let fresh = try Vault.open(at: vaultPath, keyProvider: keys, clock: clock.function)
        report.launch(try await fresh.resumePath())

        step(9, "What a support engineer sees: sessionvault inspect")
        let inspection = try await fresh.inspect(eventLimit: 10)
        await fresh.close()
        report.inspection(inspection, vault: vaultPath, eventLimit: 10)
        let executable = CommandLine.arguments.first.flatMap { $0.contains("/") ? $0 : nil } ?? "sessionvault"
        report.finish(tryIt: "\(executable) resume --vault \(vaultPath) --key-file \(keyPath)")
    }

    // MARK: Steps

    /// A new step; `at` is the tour's time of the launch it shows, when the clock moves within it.
    private func step(_ number: Int, _ title: String, at: Date? = nil) { report.step(number, title, at: at ?? clock.now) }

    // MARK: Files

    /// Creates the directory and removes only the tour's own files from an earlier run.
    private func prepareDirectory() throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw CLIFailure("--dir \(directory) exists and is not a directory") }
        } else {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700])
            } catch {
                throw CLIFailure("--dir \(directory) cannot be created: \(error.localizedDescription)")
            }
        }
        let files = VaultFiles(database: vaultPath)
        for path in [
            files.database, files.wal, files.sharedMemory, files.journal, files.header, files.tombstone,
            files.rekeyTemporary, keyPath
        ] where FileManager.default.fileExists(atPath: path) {
            do {
                try FileManager.default.removeItem(atPath: path)
            } catch {
                throw CLIFailure("\(path) from an earlier run cannot be removed: \(error.localizedDescription)")
            }
        }
    }

    /// Flips every bit of one byte inside page 1 (past its 16-byte salt), so the page's HMAC no
    /// longer matches.
    private func damageOneByte() throws -> Int {
        let offset = 1000
        guard let handle = FileHandle(forUpdatingAtPath: vaultPath) else { throw CLIFailure("\(vaultPath) cannot be opened to damage it") }
        defer { try? handle.close() }
        do {
            try handle.seek(toOffset: UInt64(offset))
            guard let byte = try handle.read(upToCount: 1)?.first else { throw CLIFailure("\(vaultPath) is too short to damage") }
            try handle.seek(toOffset: UInt64(offset))
            try handle.write(contentsOf: Data([byte ^ 0xFF]))
            try handle.synchronize()
        } catch let failure as CLIFailure {
            throw failure
        } catch {
            throw CLIFailure("\(vaultPath) could not be damaged: \(error.localizedDescription)")
        }
        return offset
    }

    // MARK: Sample data

    /// A GoTrue password-grant response as Supabase sends it: a JWT access token, an opaque
    /// refresh token, and the user object. The token values are made up for the tour.
    static func sampleResponse(issuedAt: Date) throws -> TokenResponse {
        let issued = Int(issuedAt.timeIntervalSince1970)
        let claims: [String: Any] = [
            "sub": "5b0e1c2a-7d43-4f6e-9a81-3c2d4e5f6a7b", "iss": "https://demo-project.supabase.co/auth/v1",
            "aud": "authenticated", "role": "authenticated", "email": "kari@example.org",
            "iat": issued, "exp": issued + 3600
        ]
        let header = base64URL(Data(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let payload = base64URL(try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys]))
        let refresh = "v1.demo-refresh-" + UUID().uuidString.lowercased()
        let body: [String: Any] = [
            "access_token": "\(header).\(payload).demo-signature",
            "token_type": "bearer", "expires_in": 3600, "expires_at": issued + 3600,
            "refresh_token": refresh,
            "user": [
                "id": "5b0e1c2a-7d43-4f6e-9a81-3c2d4e5f6a7b", "email": "kari@example.org", "role": "authenticated",
                "app_metadata": ["provider": "email", "roles": ["peer_mentor"], "tenant_id": "tenant-oslo"],
                "user_metadata": ["full_name": "Kari Nordmann"]
            ] as [String: Any]
        ]
        return try TokenResponse(json: try JSONSerialization.data(withJSONObject: body))
    }

    private static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

extension DemoTour {
    /// The demo's clock: it starts at the real time and the tour moves it forward by hand, as a
    /// device would see days pass between launches.
    final class Clock: @unchecked Sendable {
        // Sendable: `lock` guards `current`.
        private let lock = NSLock()
        private var current: Date

        init(start: Date) { current = start }

        var now: Date {
            lock.lock()
            defer { lock.unlock() }
            return current
        }

        func set(_ date: Date) {
            lock.lock()
            current = date
            lock.unlock()
        }

        /// The closure `Vault.open` takes.
        var function: @Sendable () -> Date { { [self] in now } }
    }
}
