import SessionVault

extension FuzzTarget {
    /// Opening a vault whose database, write-ahead log or header bytes are mutated; see
    /// `VaultOpenFuzzer` for the fixture, the input layout (`VaultMutation`) and what must hold.
    public static func vaultOpen(_ input: [UInt8]) -> String? {
        switch VaultOpenFuzzer.shared {
        case .success(let fuzzer): return fuzzer.run(input)
        case .failure(let error): return "setup: \(error)"
        }
    }

    /// How often each answer came in this process (`valid`, `corrupted(damagedWAL)`, an error's
    /// case, ...), for the run's report; empty unless `vaultOpen` ran.
    public static func vaultOpenOutcomes() -> [(outcome: String, count: Int)] {
        guard case .success(let fuzzer) = VaultOpenFuzzer.shared else { return [] }
        return fuzzer.outcomes.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Removes this process's scratch directory (call at exit).
    public static func finish() {
        FuzzScratch.shared.remove()
    }
}
