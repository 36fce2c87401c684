/* libFuzzer entry point shared by every target in tests/fuzz. */
#ifndef CUDBG_FUZZ_H
#define CUDBG_FUZZ_H
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#endif
