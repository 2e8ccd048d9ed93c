// Placeholder; grown by the multi-process tests.
print("VaultTestHost")
