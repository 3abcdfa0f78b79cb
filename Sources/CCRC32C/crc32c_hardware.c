// CRC-32C with the CPU's instructions, chosen at run time (see include/crc32c_hardware.h).
//
// The instruction-set extensions are enabled per function with `__attribute__((target(...)))`,
// so the package builds with no compiler flags (no unsafeFlags: it stays usable as a
// dependency), and nothing here runs the instructions unless `crc32c_hardware_kind()` found them.

#include "crc32c_hardware.h"

#include <string.h>

// The body of `crc32c_hardware_update` for both instruction sets: 8 bytes a step, then 4, then
// one at a time (unaligned loads through memcpy, which compile to one mov). `wide` is the type
// of the register the 8-byte step works in; `step64`, `step32` and `step8` are the instructions.
#define CRC32C_UPDATE_BODY(wide, step64, step32, step8)        \
  const unsigned char *pointer = (const unsigned char *)bytes; \
  wide crc = state;                                            \
  for (; count >= 8; pointer += 8, count -= 8) {               \
    uint64_t word;                                             \
    memcpy(&word, pointer, 8);                                 \
    crc = step64(crc, word);                                   \
  }                                                            \
  uint32_t crc32 = (uint32_t)crc;                              \
  if (count >= 4) {                                            \
    uint32_t word;                                             \
    memcpy(&word, pointer, 4);                                 \
    crc32 = step32(crc32, word);                               \
    pointer += 4;                                              \
    count -= 4;                                                \
  }                                                            \
  for (; count > 0; pointer += 1, count -= 1) {                \
    crc32 = step8(crc32, *pointer);                            \
  }                                                            \
  return crc32;

#if defined(__x86_64__)

#include <nmmintrin.h>

int crc32c_hardware_kind(void) {
  return __builtin_cpu_supports("sse4.2") ? CRC32C_HARDWARE_SSE42 : CRC32C_HARDWARE_NONE;
}

// One `crc32` of 8 bytes a step: latency 3 cycles, so about 2.7 bytes a cycle. Log lines are about
// 300 bytes; three interleaved streams (Intel's crc32c-pcl) would triple the rate on long buffers
// but need a carry-less-multiply recombination, not worth its code at this length.
__attribute__((target("sse4.2"))) uint32_t crc32c_hardware_update(uint32_t state,
                                                                  const void *bytes,
                                                                  size_t count) {
  // The 8-byte instruction takes and gives a 64-bit register: keeping it 64 bits wide in the
  // loop spares a zero-extension per step.
  CRC32C_UPDATE_BODY(uint64_t, _mm_crc32_u64, _mm_crc32_u32, _mm_crc32_u8)
}

#elif defined(__aarch64__) || defined(_M_ARM64)

#include <arm_acle.h>

#include "arm64_features.h"

int crc32c_hardware_kind(void) {
  return arm64_has_feature("hw.optional.armv8_crc32", HWCAP_CRC32, 0) ? CRC32C_HARDWARE_ARMV8
                                                                       : CRC32C_HARDWARE_NONE;
}

// The data is little-endian on every arm64 system Swift supports, as the instructions expect.
__attribute__((target("+crc"))) uint32_t crc32c_hardware_update(uint32_t state,
                                                                const void *bytes,
                                                                size_t count) {
  CRC32C_UPDATE_BODY(uint32_t, __crc32cd, __crc32cw, __crc32cb)
}

#else

int crc32c_hardware_kind(void) { return CRC32C_HARDWARE_NONE; }

// No instructions on this architecture; never called by the Swift side, which checks the kind
// first, but correct all the same (bit by bit, reflected polynomial 0x82F63B78).
uint32_t crc32c_hardware_update(uint32_t state, const void *bytes, size_t count) {
  const unsigned char *pointer = (const unsigned char *)bytes;
  uint32_t crc = state;
  for (size_t index = 0; index < count; index++) {
    crc ^= pointer[index];
    for (int bit = 0; bit < 8; bit++) {
      crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    }
  }
  return crc;
}

#endif
