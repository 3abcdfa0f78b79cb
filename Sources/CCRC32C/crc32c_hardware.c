// CRC-32C with the CPU's instructions, chosen at run time (see include/crc32c_hardware.h).
//
// The instruction-set extensions are enabled per function with `__attribute__((target(...)))`,
// so the package builds with no compiler flags (no unsafeFlags: it stays usable as a
// dependency), and nothing here runs the instructions unless `crc32c_hardware_kind()` found them.

#include "crc32c_hardware.h"

#include <string.h>

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
  const unsigned char *pointer = (const unsigned char *)bytes;
  uint64_t crc = state;
  while (count >= 8) {
    uint64_t word;
    memcpy(&word, pointer, 8);  // unaligned load; compiles to one mov
    crc = _mm_crc32_u64(crc, word);
    pointer += 8;
    count -= 8;
  }
  uint32_t crc32 = (uint32_t)crc;
  if (count >= 4) {
    uint32_t word;
    memcpy(&word, pointer, 4);
    crc32 = _mm_crc32_u32(crc32, word);
    pointer += 4;
    count -= 4;
  }
  while (count > 0) {
    crc32 = _mm_crc32_u8(crc32, *pointer);
    pointer += 1;
    count -= 1;
  }
  return crc32;
}

#elif defined(__aarch64__) || defined(_M_ARM64)

#include <arm_acle.h>

#if defined(__APPLE__)
#include <sys/sysctl.h>

int crc32c_hardware_kind(void) {
  int value = 0;
  size_t size = sizeof(value);
  if (sysctlbyname("hw.optional.armv8_crc32", &value, &size, NULL, 0) != 0) {
    return CRC32C_HARDWARE_NONE;
  }
  return value != 0 ? CRC32C_HARDWARE_ARMV8 : CRC32C_HARDWARE_NONE;
}

#elif defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1UL << 7)  // <asm/hwcap.h>
#endif

int crc32c_hardware_kind(void) {
  return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0 ? CRC32C_HARDWARE_ARMV8 : CRC32C_HARDWARE_NONE;
}

#else

int crc32c_hardware_kind(void) { return CRC32C_HARDWARE_NONE; }

#endif

// The data is little-endian on every arm64 system Swift supports, as the instructions expect.
__attribute__((target("+crc"))) uint32_t crc32c_hardware_update(uint32_t state,
                                                                const void *bytes,
                                                                size_t count) {
  const unsigned char *pointer = (const unsigned char *)bytes;
  uint32_t crc = state;
  while (count >= 8) {
    uint64_t word;
    memcpy(&word, pointer, 8);
    crc = __crc32cd(crc, word);
    pointer += 8;
    count -= 8;
  }
  if (count >= 4) {
    uint32_t word;
    memcpy(&word, pointer, 4);
    crc = __crc32cw(crc, word);
    pointer += 4;
    count -= 4;
  }
  while (count > 0) {
    crc = __crc32cb(crc, *pointer);
    pointer += 1;
    count -= 1;
  }
  return crc;
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
