import Testing

/// The corruption-recovery suite. Serialized: its cases open, damage, wipe and recreate real
/// vaults with fsyncs and spawn child processes; run one at a time they leave the other half of
/// a 2-core machine to the rest of `make test` (whose multi-process tests have timing windows).
@Suite("Corruption recovery", .serialized)
struct CorruptionRecovery {}
