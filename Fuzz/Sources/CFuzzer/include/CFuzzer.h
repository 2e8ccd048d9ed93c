#ifndef SESSIONVAULT_CFUZZER_H
#define SESSIONVAULT_CFUZZER_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver as a function (compiler-rt, LLVM 11+): a target calls it from its own
// `main`. Why not libFuzzer's `main`: SwiftPM links every executable's `main` to the module's
// own entry point, so a target without one does not link; with this, each target's main.swift
// is ordinary top-level code that hands its input callback to the driver.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
