#ifndef SESSIONVAULT_BENCH_CSODIUM_SHIM_H
#define SESSIONVAULT_BENCH_CSODIUM_SHIM_H

// The fixtures derive the vault's subkeys themselves (the library keeps them internal) to write
// extra, correctly sealed session rows through a raw keyed connection.
#include <sodium.h>

#endif
