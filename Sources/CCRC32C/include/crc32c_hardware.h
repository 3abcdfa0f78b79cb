// CRC-32C (Castagnoli) with the CPU's own instructions: SSE4.2 `crc32` on x86-64, the ARMv8
// CRC32C instructions on arm64. The Events module's `CRC32C` calls this when
// `crc32c_hardware_kind()` says the CPU has them, and its table-driven Swift code otherwise.
// The target holds only what Swift cannot reach: this checksum and SHA-256's compression
// function (sha256_compress.h).
#ifndef CRC32C_HARDWARE_H
#define CRC32C_HARDWARE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// No CRC-32C instructions on this CPU (or this architecture): use the software code.
#define CRC32C_HARDWARE_NONE 0
/// x86-64 with SSE4.2 (`crc32` instruction).
#define CRC32C_HARDWARE_SSE42 1
/// arm64 with the ARMv8 CRC32 extension (`crc32cb`/`crc32cx`).
#define CRC32C_HARDWARE_ARMV8 2

/// Which CRC-32C instructions this CPU has, detected at run time (cheap, but callers cache it):
/// one of the `CRC32C_HARDWARE_*` values.
int crc32c_hardware_kind(void);

/// Advances the CRC-32C register `state` over `count` bytes at `bytes` (which may be unaligned,
/// and NULL when `count` is 0). No inversion on entry or exit: pass `~crc` and invert the result,
/// as the checksum's definition asks.
///
/// Call only when `crc32c_hardware_kind()` is not `CRC32C_HARDWARE_NONE`: on a CPU without the
/// instructions this traps (SIGILL). On architectures with no such instructions it computes the
/// value bit by bit, so it is correct everywhere, if slow there.
uint32_t crc32c_hardware_update(uint32_t state, const void *bytes, size_t count);

#ifdef __cplusplus
}
#endif

#endif
