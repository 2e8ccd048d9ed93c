// Only the header matters (LLVMFuzzerRunDriver is defined by libFuzzer, linked with
// -sanitize=fuzzer); SwiftPM wants a C target to have a source file.
#include "CFuzzer.h"
