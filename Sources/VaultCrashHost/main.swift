// Placeholder; the corruption-recovery suite grows it.
print("VaultCrashHost")
