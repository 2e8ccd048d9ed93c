import ArgumentParser
import Foundation
import SessionVault

/// `sessionvault wipe --yes`: the recovery wipe, on request.
struct WipeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wipe",
        abstract: "Delete the vault, its sidecars and its key (crypto-shred); a corrupted vault leaves a tombstone saying why.",
        discussion: """
            A key that does not match the vault, is missing, or cannot be checked (no vault header) \
            refuses the wipe (exit 3): the path may be mistyped. Add --without-key to wipe anyway; that \
            key is then kept, as it may belong to another vault. A key that cannot be read right now \
            refuses the wipe: retry later. Deleted: the database, its -wal, -shm and -journal \
            files and the header; the key is destroyed (crypto-shred). Without --yes it is a usage \
            error and nothing is touched.
            """ + ExitStatus.help)

    @OptionGroup var options: VaultOptions
    @OptionGroup var clock: ClockOptions

    @Flag(help: "Confirm: the vault and its key are deleted for good.")
    var yes = false

    @Flag(
        name: .customLong("without-key"),
        help: "Wipe even when the key given does not open the vault (wrong, missing, or no header to check it); that key is kept.")
    var withoutKey = false

    func validate() throws {
        try options.requireKey()
        if !yes { throw ValidationError("wipe deletes the vault and its key for good; add --yes to confirm") }
    }

    func run() async throws {
        let console = Console()
        try await CLIFailure.reporting(console, json: options.json) {
            let now = clock.now
            let keys = try options.keyProvider()
            // The files can change between the decision and the wipe (another process recovered
            // the vault and signed in afresh): the library then wipes nothing and says so, and
            // the decision is taken again on what is there now, a few times at most.
            var attempt = 1
            while true {
                let location = try options.location()
                guard location.databaseExists || location.headerExists else {
                    report(wiped: false, reason: nil, keyDestroyed: false, console: console)
                    return 0
                }
                do {
                    let (reason, keyDestroyed) = try await wipe(location: location, keys: keys, now: now)
                    report(wiped: true, reason: reason, keyDestroyed: keyDestroyed, console: console)
                    return 0
                } catch VaultError.changedElsewhere(let detail) {
                    guard attempt < 3 else { throw CLIFailure("not wiped: the vault kept changing while it was being wiped (\(detail)); retry") }
                    attempt += 1
                }
            }
        }
    }

    /// One decision and its wipe: the vault wiped (with the corruption found, if any) and
    /// whether the key was destroyed.
    private func wipe(location: VaultLocation, keys: any KeyProvider, now: Date) async throws -> (CorruptionReason?, Bool) {
        do {
            let vault = try options.open(keys, now: now)
            try await vault.wipe(reason: nil)
            return (nil, true)
        } catch {
            switch error {
            case .corrupted(let found):
                // Not this vault's key (or none): leave it alone. A key file of zeros that an
                // interrupted wipe left is no key of any vault: the wipe finishes removing it.
                let shredded = (keys as? KeyFileProvider)?.holdsShreddedKey() == true
                let keepKey =
                    !shredded
                    && (found.kind == .wrongKey || found.kind == .keyMissing
                        || (found.kind == .headerDamaged && !location.headerExists && location.tombstone == nil))
                if keepKey && !withoutKey {
                    // Nothing proves this is the vault the user meant: a mistyped --key-file or
                    // --vault must not cost a vault. Only an explicit --without-key goes on.
                    throw CLIFailure(
                        "not wiped: the key given does not open \(options.path) (\(found.kind.rawValue)); "
                            + "if the vault really is lost, add --without-key", status: CLIFailure.refused)
                }
                try Vault.recover(at: options.path, keyProvider: keepKey ? nil : keys, reason: found, now: now)
                return (found, !keepKey)
            case .otherKey:
                // The key file given is not the one the vault names: a mistyped --key-file must
                // not cost a vault. With --without-key the vault goes and that key file stays.
                guard withoutKey else {
                    throw CLIFailure("not wiped: \(error); if the vault really is lost, add --without-key", status: CLIFailure.refused)
                }
                let reason = CorruptionReason(.keyMissing, "\(error)")
                try Vault.recover(at: options.path, keyProvider: nil, reason: reason, now: now)
                return (reason, false)
            case .unavailable(_, let detail):
                throw CLIFailure("not wiped: the key cannot be read right now (\(detail)); retry later")
            default:
                throw error
            }
        }
    }

    private func report(wiped: Bool, reason: CorruptionReason?, keyDestroyed: Bool, console: Console) {
        if options.json {
            console.line(
                JSONValue.object([
                    "vault": .string(options.path),
                    "wiped": .bool(wiped),
                    "keyDestroyed": .bool(wiped && keyDestroyed),
                    "corrupted": reason.map { .object(["kind": .string($0.kind.rawValue), "detail": .string($0.detail)]) } ?? .null,
                    "tombstone": Vault.tombstone(at: options.path)?.json ?? .null
                ]).rendered())
            return
        }
        guard wiped else {
            console.say("nothing to wipe: no vault at \(options.path)")
            return
        }
        console.say("wiped \(options.path): database, -wal, -shm, -journal and header deleted")
        console.line(keyDestroyed ? "key destroyed (crypto-shred)" : "key left in place: it does not open this vault")
        if let reason {
            console.say("tombstone written: \(reason.kind.rawValue) (\(Console.oneLine(reason.detail)))")
        }
    }
}
